/**
 * The import rules of DESIGN.md, checked on the source itself: dependencies point one way
 * (app → commands → src/discord → src/agent; src/llm and tools implement the engine's interfaces;
 * src/state beside; src/policy pure), no file reaches itself through imports, and the bot only routes
 * interactions, so a change that reaches backwards fails here, not in review.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const child = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(child);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [child] : [];
  });
}

/** Every module a file imports (static, dynamic and type-only), relative ones resolved to project paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)]
    .map((m) => m[1] ?? m[2] ?? m[3]!);
  return specifiers.map((s) => (s.startsWith('.') ? path.relative(ROOT, path.resolve(ROOT, path.dirname(file), s)).replace(/\.js$/, '.ts') : s));
}

function violations(dir: string, allowed: (target: string, file: string) => boolean): string[] {
  return sourceFiles(dir).flatMap((file) => importsOf(file).filter((target) => !allowed(target, file)).map((target) => `${file} imports ${target}`));
}

const isPackage = (target: string) => !target.includes('/') || !target.startsWith('src') && !target.startsWith('app') && !target.startsWith('commands') && !target.startsWith('tools') && !/^(test|bench)\//.test(target);
const inside = (target: string, ...dirs: string[]) => dirs.some((d) => target === d || target.startsWith(`${d}/`));

describe('import direction', () => {
  it('reads every kind of import (the checker itself works)', () => {
    expect(importsOf('app/app.ts')).toContain('commands/index.ts');
    expect(importsOf('src/agent/engine.ts')).toContain('src/agent/run-loop.ts');
    expect(importsOf('src/state/backends/open-backend.ts')).toContain('src/state/backends/sqlite-backend.ts');
  });

  it('no file under src/ imports commands/ or app/', () => {
    expect(violations('src', (t) => !inside(t, 'commands', 'app'))).toEqual([]);
  });

  it('the engine (src/agent/) imports nothing of the project outside itself but the errors module, and no Discord', () => {
    const allowed = (t: string) => (isPackage(t) ? t !== 'discord.js' : inside(t, 'src/agent') || t === 'src/errors.ts');
    expect(violations('src/agent', allowed)).toEqual([]);
  });

  it('policy (src/policy/) is rule logic: no discord.js and nothing from the Discord layer', () => {
    expect(violations('src/policy', (t) => t !== 'discord.js' && !inside(t, 'src/discord', 'commands', 'app', 'src/llm', 'tools'))).toEqual([]);
  });

  it('storage, the model client, the tools and the MCP client never reach up into Discord or the commands', () => {
    for (const dir of ['src/state', 'src/llm', 'tools', 'src/ops', 'src/mcp']) {
      expect(violations(dir, (t) => t !== 'discord.js' && !inside(t, 'src/discord', 'commands', 'app', 'src/policy'))).toEqual([]);
    }
  });

  it('commands go through the Discord layer and policy, never through the composition root', () => {
    expect(violations('commands', (t) => !inside(t, 'app'))).toEqual([]);
  });
});

/** Every import between the project's own files under `dirs`, as `file → [imported files]`. */
function importGraph(...dirs: string[]): Map<string, string[]> {
  const files = dirs.flatMap(sourceFiles);
  const known = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file).filter((target) => known.has(target))]));
}

/** One circle (`a → b → a`) for each import that closes one in a depth-first walk: none when the graph has no circle. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const walk = (file: string): void => {
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (path.includes(target)) found.push([...path.slice(path.indexOf(target)), target].join(' → '));
      else if (!done.has(target)) walk(target);
    }
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) walk(file);
  return found;
}

/** Whether `to` can be reached from `from` by following imports. */
function reaches(graph: ReadonlyMap<string, readonly string[]>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const queue = [from];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (file === to) return true;
    for (const next of graph.get(file) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return false;
}

/**
 * Type-only imports that still close a circle, each to go with the work on its part (the turn pipeline
 * for the first two, the storage homes for the last). The list only shrinks: an import here that no
 * longer closes a circle fails the test below, so a circle broken stays broken.
 */
const KNOWN_CIRCLE_IMPORTS: ReadonlyArray<readonly [from: string, to: string]> = [
  ['src/discord/thread-turn.ts', 'src/discord/turns.ts'],
  ['src/discord/follow-up-batches.ts', 'src/discord/turns.ts'],
  ['src/state/usage/open-stores.ts', 'src/state/usage/usage-limiter.ts'],
];

describe('import circles', () => {
  const graph = importGraph('app', 'commands', 'src', 'tools');

  it('finds a circle when there is one (the checker itself works)', () => {
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', []]]))).toEqual(['a → b → c → a']);
    expect(circles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
    expect(graph.get('src/discord/bot.ts')).toContain('src/discord/interactions.ts');
  });

  it('no file in app/, commands/, src/ or tools/ reaches itself through imports (type-only ones included)', () => {
    const known = new Set(KNOWN_CIRCLE_IMPORTS.map(([from, to]) => `${from} ${to}`));
    const withoutKnown = new Map([...graph].map(([file, targets]) => [file, targets.filter((t) => !known.has(`${file} ${t}`))]));
    expect(circles(withoutKnown)).toEqual([]);
  });

  it('each import in the list of known circles still closes one (remove it from KNOWN_CIRCLE_IMPORTS once it does not)', () => {
    const stale = KNOWN_CIRCLE_IMPORTS.filter(([from, to]) => !graph.get(from)?.includes(to) || !reaches(graph, to, from));
    expect(stale.map(([from, to]) => `${from} imports ${to}`)).toEqual([]);
  });
});

describe('interactions', () => {
  it('the bot only routes: bot.ts names no custom id prefix and imports no module that defines one', () => {
    const bot = 'src/discord/bot.ts';
    const text = fs.readFileSync(path.join(ROOT, bot), 'utf8');
    const hardCoded = [...text.matchAll(/\b\w*_PREFIX\b|['"`][\w-]+:['"`]|\.startsWith\(/g)].map((m) => m[0]);
    expect(hardCoded).toEqual([]);
    const definesPrefix = (file: string) => /\bprefix:\s*['"`]|_PREFIX\s*=/.test(fs.readFileSync(path.join(ROOT, file), 'utf8'));
    expect(importsOf(bot).filter((t) => t.startsWith('src/') && definesPrefix(t))).toEqual([]);
  });
});
