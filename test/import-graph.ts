/**
 * The project's imports, read from its source for the architecture tests: which files import which
 * (static, dynamic and type-only imports, or value imports alone), the circles among files, and the
 * chains of imports that leave a folder and come back into it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The TypeScript files under `dir` (a project path), recursively. */
export function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const child = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(child);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [child] : [];
  });
}

export const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

/**
 * Every module a file imports, relative ones resolved to project paths. `values`: without the
 * type-only ones (`import type`, `export type`), which the build erases. Under verbatimModuleSyntax an
 * `import { type X }` stays in the output as an import, so it counts as a value import.
 */
export function importsOf(file: string, kinds: 'all' | 'values' = 'all'): string[] {
  return [...read(file).matchAll(IMPORT)]
    .filter((m) => kinds === 'all' || !m[1])
    .map((m) => m[2] ?? m[3] ?? m[4]!)
    .map((s) => (s.startsWith('.') ? path.relative(ROOT, path.resolve(ROOT, path.dirname(file), s)).replace(/\.js$/, '.ts') : s));
}

/** Whether `target` is one of `dirs` or inside one. */
export const inside = (target: string, ...dirs: string[]) => dirs.some((d) => target === d || target.startsWith(`${d}/`));

/** Production code: what the architecture is about (tests and benches may reach anywhere to test it). */
export const PRODUCTION = ['src', 'tools', 'app', 'commands'];
export const productionFiles = () => PRODUCTION.flatMap(sourceFiles);

/** Every import between the project's own files under `dirs`, as `file → [imported files]`. */
export function importGraph(dirs: readonly string[], kinds: 'all' | 'values' = 'all'): Map<string, string[]> {
  const files = dirs.flatMap(sourceFiles);
  const known = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file, kinds).filter((target) => known.has(target))]));
}

/** One circle (`a → b → a`) for each import that closes one in a depth-first walk: none when the graph has no circle. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const trail: string[] = [];
  const walk = (file: string): void => {
    trail.push(file);
    for (const target of graph.get(file) ?? []) {
      if (trail.includes(target)) found.push([...trail.slice(trail.indexOf(target)), target].join(' → '));
      else if (!done.has(target)) walk(target);
    }
    trail.pop();
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) walk(file);
  return found;
}

/**
 * The chains of imports that leave `folder` (its subfolders are inside it) and come back into it, as
 * `folder: a → b → c` (a and c inside, b not): for each import leading out, the shortest way back, if any.
 * None: what the folder uses never uses it.
 */
export function folderReturns(graph: ReadonlyMap<string, readonly string[]>, folder: string): string[] {
  const within = (file: string) => inside(file, folder);
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (!within(file)) continue;
    for (const exit of targets.filter((t) => !within(t))) {
      const cameFrom = new Map<string, string | undefined>([[exit, undefined]]);
      const queue = [exit];
      let back: string | undefined;
      while (queue.length > 0 && back === undefined) {
        const at = queue.shift()!;
        for (const next of graph.get(at) ?? []) {
          if (within(next)) {
            back = next;
            cameFrom.set(next, at);
            break;
          }
          if (!cameFrom.has(next)) {
            cameFrom.set(next, at);
            queue.push(next);
          }
        }
      }
      if (back === undefined) continue;
      const chain: string[] = [];
      for (let at: string | undefined = back; at !== undefined; at = cameFrom.get(at)) chain.unshift(at);
      found.push(`${folder}: ${[file, ...chain].join(' → ')}`);
    }
  }
  return found;
}
