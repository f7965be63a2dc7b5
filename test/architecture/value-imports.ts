/**
 * Helpers of the architecture tests: the value imports of a file, static or dynamic (a type-only import
 * is erased and loads nothing), and the storage kinds a file names in its code.
 */
import path from 'node:path';

/**
 * The project files and packages a file imports as values: static (`import x`, `import { a, type B }`,
 * which `verbatimModuleSyntax` keeps as a load, `export ... from`) and, with `dynamic`, `import()`.
 * `import type` and `export type` are left out. Relative imports are resolved to project paths.
 */
export function valueImportsOf(file: string, text: string, options: { dynamic: boolean }): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+([^'"]*?)\s*from\s+['"]([^'"]+)['"]|(import)\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) {
    if (m[1] !== undefined && /^type\b/.test(m[1])) continue;
    if (m[3] && !options.dynamic) continue;
    found.push((m[2] ?? m[4] ?? m[5])!);
  }
  return found.map((s) => (s.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), s)).replace(/\.js$/, '.ts') : s));
}

/**
 * The storage kinds `text` names in its code (comments left out): a quoted kind or URL scheme
 * (`'redis'`), a decision on one (`kind === 'memory'`, `case 'sqlite':`, `kind: 'postgres'`), or a
 * test of a URL's scheme (`/^(sqlite|memory):/`, `/^rediss?:/`). `words` maps each kind and scheme to
 * its kind; an `ordinary` word (memory, also the member-memory feature's name) counts only in a comparison
 * or a scheme test, never merely quoted.
 */
export function namedKinds(text: string, words: ReadonlyMap<string, string>, ordinary: ReadonlySet<string>): Set<string> {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\'"`])\/\/[^\n]*/g, '$1');
  const named = new Set<string>();
  for (const [word, kind] of words) {
    const q = `['"\`]${word}['"\`]`;
    // A `case 'memory':` may switch on anything (a setting's name): for an ordinary word only a comparison
    // with a kind or a scheme decides one.
    const cases = ordinary.has(word) ? '' : `|case\\s+${q}`;
    const decision = new RegExp(`(?:kind|scheme)\\s*[!=]==?\\s*${q}${cases}|kind:\\s*${q}|startsWith\\(\\s*['"\`]${word}:`, 'i');
    const schemeTest = new RegExp(`\\^\\(?[\\w|?()]*\\b${word}\\b[\\w|?()]*\\)?\\??:`, 'i');
    if (decision.test(code) || schemeTest.test(code) || (!ordinary.has(word) && new RegExp(q).test(code))) named.add(kind);
  }
  return named;
}
