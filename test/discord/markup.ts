/**
 * Reading Discord markup the way Discord's parser does, for tests that check what a message renders as:
 * the masked links `[label](target)` (with or without `<…>` around the target) that are not escaped.
 */

/**
 * What Discord would show as masked links in `text`, outside code (where Markdown is not read): an
 * escaped `\[` opens none, and neither does a `]` parted from its `(`.
 */
export function linksOutsideCode(text: string): Array<{ label: string; target: string }> {
  // An escaped backtick or bracket is a literal character: it neither opens code nor a link.
  const plain = text.replace(/\\[`[]/g, 'x').replace(/```[\s\S]*?```/g, ' ').replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, ' ');
  return maskedLinks(plain);
}

/** Masked links in `text`, as Discord would render them (an escaped `\[` or a `]` parted from its `(` is none). */
export function maskedLinks(text: string): Array<{ label: string; target: string }> {
  const links: Array<{ label: string; target: string }> = [];
  // Discord's rule (simple-markdown): `[` label (brackets may nest one level) `](` optional `<` target `>` `)`.
  const pattern = /\[((?:\[[^\]]*\]|[^[\]]|\](?=[^[]*\]))*)\]\(\s*<?((?:\([^)]*\)|[^\s\\])*?)>?\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    let backslashes = 0;
    for (let i = match.index - 1; i >= 0 && text[i] === '\\'; i--) backslashes++;
    if (backslashes % 2 === 1) continue;
    links.push({ label: match[1]!.replace(/\\(.)/g, '$1'), target: match[2]! });
  }
  return links;
}
