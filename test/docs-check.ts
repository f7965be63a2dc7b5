/**
 * Reading the docs for test/docs.test.ts: the settings `.env.example` lists (commented `#NAME=` lines
 * too) with the docs pages their section points to, the lines of a page that define a setting, and the
 * relative links of a page with the heading anchors they may point to. Pure functions over text, so the
 * test can also run them on planted pages and see each rule catch what it is for.
 */

/** A setting of `.env.example`: its name, its line, and the pages its section's `# See docs/…` line names. */
export interface Setting {
  name: string;
  line: number;
  pointers: string[];
}

/** A line of a docs page that defines a setting. */
export interface Definition {
  name: string;
  page: string;
  line: number;
}

const NAME = /^[A-Z][A-Z0-9_]*$/;
const SETTING_LINE = /^#?\s*([A-Z][A-Z0-9_]*)=/;
const SECTION = /^# ---/;
const POINTER = /^# See (docs\/[^\s]+\.md)/;

/** Every setting in `.env.example`, in order, each with the docs pages its section's pointer line names. */
export function settingsOf(envText: string): Setting[] {
  const settings: Setting[] = [];
  let pointers: string[] = [];
  envText.split('\n').forEach((text, index) => {
    if (SECTION.test(text)) pointers = [];
    if (POINTER.test(text)) pointers = [...text.matchAll(/docs\/[\w-]+\.md/g)].map((m) => m[0]);
    const name = SETTING_LINE.exec(text)?.[1];
    if (name) settings.push({ name, line: index + 1, pointers });
  });
  return settings;
}

/** The lines of `text` outside fenced code blocks, with their numbers (a fence's own lines left out). */
export function proseLines(text: string): Array<{ text: string; line: number }> {
  const out: Array<{ text: string; line: number }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      return;
    }
    if (!fence) out.push({ text: line, line: index + 1 });
  });
  return out;
}

/**
 * The names a text starts with: `` `A` ``, or several (`` `A`, `B` ``, `` `A` and `B` ``, `` `A` / `B` ``),
 * bold or not. Only names in backticks count, so a sentence that merely begins with a word in capitals does not.
 */
function leadingNames(text: string): { names: string[]; rest: string } {
  const names: string[] = [];
  let rest = text.replace(/^\*\*/, '');
  for (;;) {
    const m = /^`([^`]+)`/.exec(rest);
    if (!m || !NAME.test(m[1]!)) break;
    names.push(m[1]!);
    rest = rest.slice(m[0].length);
    const joint = /^(\*\*)?(\s*,\s*|\s+and\s+|\s+or\s+|\s*\/\s*)(\*\*)?(?=`)/.exec(rest);
    if (!joint) break;
    rest = rest.slice(joint[0].length);
  }
  return { names, rest: rest.replace(/^\*\*/, '') };
}

/**
 * The settings a line defines: a table row's first cell, the start of a list item, a heading (any name
 * in it), or a line that starts with the names and a colon (`` `NAME`: … ``). Other mentions only refer.
 */
export function definedOn(text: string, settings: ReadonlySet<string>): string[] {
  const known = (names: string[]) => names.filter((n) => settings.has(n));
  const heading = /^#{1,6}\s+(.*)$/.exec(text);
  if (heading) return [...settings].filter((n) => new RegExp(`(^|[^A-Z0-9_])${n}($|[^A-Z0-9_])`).test(heading[1]!));
  const row = /^\s*\|([^|]*)\|/.exec(text);
  if (row) return known(leadingNames(row[1]!.trim()).names);
  const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(text);
  if (item) return known(leadingNames(item[1]!).names);
  const { names, rest } = leadingNames(text.trim());
  return rest.startsWith(':') ? known(names) : [];
}

/** Every defining line of every page (`pages`: page name → its text). */
export function definitionsIn(pages: Record<string, string>, settings: ReadonlySet<string>): Definition[] {
  return Object.entries(pages).flatMap(([page, text]) =>
    proseLines(text).flatMap(({ text: line, line: number }) => definedOn(line, settings).map((name) => ({ name, page, line: number }))),
  );
}

/**
 * What is wrong with how the docs explain the settings: a setting no page defines, one defined more than
 * once (naming every place), or one defined in a page its section of `.env.example` does not point to.
 */
export function settingProblems(settings: readonly Setting[], pages: Record<string, string>): string[] {
  const definitions = definitionsIn(pages, new Set(settings.map((s) => s.name)));
  return settings.flatMap((setting) => {
    const found = definitions.filter((d) => d.name === setting.name);
    if (found.length === 0) return [`${setting.name} (.env.example line ${setting.line}) is explained in no docs page: give it one defining line (a table's first cell, a list item's start, a heading, or \`${setting.name}\`:)`];
    if (found.length > 1) return [`${setting.name} has ${found.length} defining lines, keep one and link to it: ${found.map((d) => `${d.page}:${d.line}`).join(', ')}`];
    const page = found[0]!.page;
    if (!setting.pointers.includes(page)) return [`${setting.name} is explained in ${page}, but its section of .env.example points to ${setting.pointers.join(', ') || 'no page'} (add "# See ${page}")`];
    return [];
  });
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped (but `-` and `_`), spaces as `-`. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, repeats numbered as GitHub numbers them (`x`, `x-1`, …). */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative links of a page (not http(s), mailto or other schemes), outside code, with their lines. */
export function relativeLinks(text: string): Array<{ target: string; line: number }> {
  return proseLines(text).flatMap(({ text: line, line: number }) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ target, line: number })),
  );
}

/** What a link checker needs of the files: whether a path exists, and a Markdown file's text. */
export interface Files {
  exists(path: string): boolean;
  text(path: string): string | undefined;
}

/**
 * Links that point nowhere: a file that does not exist, or a heading anchor the page does not have.
 * `pages` maps each checked page's path (from the project root) to its text; `pending` names pages still
 * being written, whose absence is no problem yet (once one exists, links to it are checked like any).
 */
export function linkProblems(pages: Record<string, string>, files: Files, pending: ReadonlySet<string>): string[] {
  return Object.entries(pages).flatMap(([page, text]) =>
    relativeLinks(text).flatMap(({ target, line }) => {
      const [file = '', anchor] = target.split('#', 2);
      const resolved = file === '' ? page : joinPath(dirOf(page), decodeURI(file));
      const where = `${page}:${line} links to ${target}`;
      if (!files.exists(resolved)) return pending.has(resolved) ? [] : [`${where}, but ${resolved} does not exist`];
      if (anchor === undefined || !resolved.endsWith('.md')) return [];
      return anchorsOf(files.text(resolved) ?? '').has(anchor) ? [] : [`${where}, but ${resolved} has no heading with the anchor #${anchor}`];
    }),
  );
}

function dirOf(page: string): string {
  return page.includes('/') ? page.slice(0, page.lastIndexOf('/')) : '';
}

/** `base` + a relative path, `..` and `.` resolved, as a path from the project root. */
function joinPath(base: string, relative: string): string {
  const parts: string[] = base ? base.split('/') : [];
  for (const part of relative.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.' && part !== '') parts.push(part);
  }
  return parts.join('/');
}
