/**
 * Helpers of the architecture test for the rules that only value imports decide (a type-only import
 * is erased and loads nothing), and for finding the storage kinds a file names in its code.
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

/** Every folder a file is in, nearest last (`src/storage/sqlite/x.ts`: src, src/storage, src/storage/sqlite). */
function foldersOf(file: string): string[] {
  const parts = file.split('/').slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * For each folder that a chain of imports leaves and comes back into, one such chain (`folder: a → b
 * → c`, a and c inside the folder or below it, b outside). Empty when every folder's imports of the
 * world outside it never lead back in, so that each folder sits wholly above or below the others.
 */
export function folderChains(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const folders = [...new Set([...graph.keys()].flatMap(foldersOf))].sort();
  const found: string[] = [];
  for (const folder of folders) {
    const inside = (file: string) => file.startsWith(`${folder}/`);
    // Walk outward from every import that leaves the folder; the first file found inside again closes a chain.
    const cameFrom = new Map<string, string>();
    const queue: string[] = [];
    for (const [file, targets] of graph) {
      if (!inside(file)) continue;
      for (const target of targets) if (!inside(target) && !cameFrom.has(target)) cameFrom.set(target, file), queue.push(target);
    }
    let closing: [string, string] | undefined;
    while (queue.length && !closing) {
      const at = queue.shift()!;
      for (const target of graph.get(at) ?? []) {
        if (inside(target)) {
          closing = [at, target];
          break;
        }
        if (!cameFrom.has(target)) cameFrom.set(target, at), queue.push(target);
      }
    }
    if (!closing) continue;
    const chain = [closing[1]];
    for (let at: string | undefined = closing[0]; at !== undefined; at = inside(at) ? undefined : cameFrom.get(at)) chain.unshift(at);
    found.push(`${folder}: ${chain.join(' → ')}`);
  }
  return found;
}

/**
 * The storage kinds `text` names in its code (comments left out): a quoted kind or URL scheme
 * (`'redis'`), a decision on one (`kind === 'memory'`, `case 'sqlite':`, `kind: 'postgres'`), or a
 * test of a URL's scheme (`/^(sqlite|memory):/`, `/^rediss?:/`). `words` maps each kind and scheme to
 * its kind; an `ordinary` word (memory, also the member-memory feature's name) counts only in a decision
 * or a scheme test, never merely quoted.
 */
export function namedKinds(text: string, words: ReadonlyMap<string, string>, ordinary: ReadonlySet<string>): Set<string> {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\'"`])\/\/[^\n]*/g, '$1');
  const named = new Set<string>();
  for (const [word, kind] of words) {
    const q = `['"\`]${word}['"\`]`;
    const decision = new RegExp(`(?:kind|scheme)\\s*[!=]==?\\s*${q}|case\\s+${q}|kind:\\s*${q}|startsWith\\(\\s*['"\`]${word}:`, 'i');
    const schemeTest = new RegExp(`\\^\\(?[\\w|?()]*\\b${word}\\b[\\w|?()]*\\)?\\??:`, 'i');
    if (decision.test(code) || schemeTest.test(code) || (!ordinary.has(word) && new RegExp(q).test(code))) named.add(kind);
  }
  return named;
}
