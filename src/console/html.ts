/**
 * The console's one way to write HTML: `html` is a tagged template that escapes every value put into it
 * (names, audit lines, tool arguments: all of it may come from members, tools or MCP servers), unless
 * the value is itself `Html` made by this tag. Arrays are joined; `undefined`, `null` and `false` write
 * nothing. Nothing else in the console builds markup by string concatenation.
 */

/** Markup made by `html` (or the Discord-markup renderer, which escapes first): safe to put into a page as it is. */
export class Html {
  /** Only this module and `markup.ts` make one: every other value is text. */
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | bigint | boolean | null | undefined | readonly Value[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text as HTML text or attribute value: every character that could open markup or close a quoted attribute, escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<td>${name}</td>\``: the values escaped, the template's own markup kept. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** A whole document, as the response body. */
export function documentText(page: Html): string {
  return `<!doctype html>\n${page.text}`;
}
