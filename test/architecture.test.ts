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
import { BACKENDS } from '../src/storage/registry.js';
import { folderChains, namedKinds, valueImportsOf } from './architecture/value-imports.js';

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
    expect(importsOf('src/storage/sqlite/declaration.ts')).toContain('src/storage/sqlite/index.ts');
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

  it('the vocabulary of schedules (src/schedules/) is pure: no discord.js, no store, nothing from the Discord layer', () => {
    expect(violations('src/schedules', (t) => (isPackage(t) ? t !== 'discord.js' && !/keyv|pg|sqlite3|redis/.test(t) : inside(t, 'src/schedules')))).toEqual([]);
  });

  it('storage, the model client, the tools and the MCP client never reach up into Discord or the commands', () => {
    for (const dir of ['src/state', 'src/storage', 'src/knowledge', 'src/net', 'src/llm', 'tools', 'src/ops', 'src/mcp', 'src/schedules', 'src/workers']) {
      expect(violations(dir, (t) => t !== 'discord.js' && !inside(t, 'src/discord', 'commands', 'app', 'src/policy'))).toEqual([]);
    }
  });

  it('the evaluation runner (src/eval/) runs cases through the core, as npm run ask does: no discord.js, no commands, and of the Discord layer only the turn\'s instructions', () => {
    const allowed = (t: string) => (isPackage(t) ? t !== 'discord.js' : !inside(t, 'commands', 'app', 'src/cli') && (!inside(t, 'src/discord') || t === 'src/discord/turn/conversation.ts'));
    expect(violations('src/eval', allowed)).toEqual([]);
    expect(importsOf('src/eval/main.ts')).toContain('src/core.ts');
  });

  it('commands go through the Discord layer and policy, never through the composition root', () => {
    expect(violations('commands', (t) => !inside(t, 'app'))).toEqual([]);
  });
});

describe('the rules of a place have one home', () => {
  const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

  it('src/policy/ is rule logic over values: it takes no store (settings, usage, a backend)', () => {
    const offenders = sourceFiles('src/policy').filter((file) => /\b(GuildSettingsStore|ConversationStore|UsageLimiter|Backend|Keyv)\b/.test(read(file)));
    expect(offenders).toEqual([]);
  });

  it('src/policy/ writes no Discord markup: its decisions are data, and src/discord/ writes the sentences', () => {
    // Mentions and timestamps (channel, member, role, time) anywhere in the text, comments included.
    const offenders = sourceFiles('src/policy').filter((file) => /<[#@]|<t:/.test(read(file)));
    expect(offenders).toEqual([]);
  });

  /** Production code beyond the stores and the policy: what the door to the settings is about. */
  const consumers = () => ['src', 'app', 'commands', 'tools'].flatMap(sourceFiles).filter((file) => !inside(file, 'src/state', 'src/policy'));
  const RULES_HOME = 'src/discord/rules';

  it('guild settings are read only through the rules object (src/discord/rules/): no command, composition root or Discord module reads the store', () => {
    const reads = /\bguildSettings\s*(?:\?\.|\.)\s*(?:get|update)\s*\(|\bstore\.get\(\s*scope\.guildId\s*\)|\brules\.store\b/;
    expect(consumers().filter((file) => !inside(file, RULES_HOME) && reads.test(read(file)))).toEqual([]);
  });

  it('the settings store is reached only by the rules object and its audit writer; the composition root only hands it over', () => {
    const names = /\bGuildSettingsStore\b|\.guildSettings\b|\brules\.store\b/;
    // The one thing app/ may do with it: pass `storage.guildSettings` on, as a value (`guildSettings: storage.guildSettings,`).
    const handedOver = (text: string) => text.replace(/\bguildSettings: storage\.guildSettings(?=\s*[,}\n])/g, '');
    const offenders = consumers().filter((file) => !inside(file, RULES_HOME) && names.test(inside(file, 'app') ? handedOver(read(file)) : read(file)));
    expect(offenders).toEqual([]);
    expect(consumers().filter((file) => inside(file, 'app') && names.test(read(file)))).toEqual(['app/parts.ts']);
  });

  it('an audit entry is written only by the audit writer (src/discord/rules/audit-trail.ts), so every change goes through a named write that audits itself', () => {
    const writes = /\b(?:recordAudit|withAuditEntry)\b/;
    expect(consumers().filter((file) => writes.test(read(file)))).toEqual(['src/discord/rules/audit-trail.ts']);
  });

  it('usage limits are computed in one place: the rules object\'s rules of a place (src/discord/rules/place-rules.ts) over src/policy/limits.ts', () => {
    // limits-text.ts shows what a server set beside the defaults (`/settings limits show`), which is not a member's limits.
    const computes = /\b(?:effectiveLimits|serverLimits)\s*\(/;
    expect(consumers().filter((file) => computes.test(read(file))).sort()).toEqual(['src/discord/rules/place-rules.ts', 'src/discord/text/limits-text.ts']);
  });
});

describe('the Discord layer by concern', () => {
  /** The folders of src/discord/, from the top: a folder imports only folders below it (and the root's plain helpers). */
  const LAYERS = [['messages', 'buttons', 'schedules'], ['turn'], ['posting', 'rules', 'files', 'runs', 'text', 'memory']];
  /** The root's routing and wiring: imported by nothing below the root. */
  const ROUTING = ['src/discord/bot.ts', 'src/discord/services.ts', 'src/discord/interactions.ts', 'src/discord/command.ts'];
  const folderOf = (file: string) => /^src\/discord\/([^/]+)\//.exec(file)?.[1];
  const levelOf = (folder: string | undefined) => LAYERS.findIndex((layer) => folder !== undefined && layer.includes(folder));

  it('every folder of src/discord/ has its place in the layers', () => {
    const folders = new Set(sourceFiles('src/discord').map(folderOf).filter((f): f is string => f !== undefined));
    expect([...folders].filter((f) => levelOf(f) === -1)).toEqual([]);
  });

  it('a folder imports only folders below it: the buttons and messages start turns, the turn uses posting, rules, files, runs and text, and those reach up into nothing', () => {
    const bottom = LAYERS.length - 1;
    // The bottom folders may use each other (no circle: that is checked above); above them, a folder uses only lower ones.
    const upward = (from: number, to: number) => to !== -1 && (to < from || (to === from && from !== bottom));
    const offenders = sourceFiles('src/discord').flatMap((file) => {
      const from = levelOf(folderOf(file));
      if (from === -1) return [];
      return importsOf(file)
        .filter((target) => ROUTING.includes(target) || (inside(target, 'src/discord') && folderOf(target) !== folderOf(file) && upward(from, levelOf(folderOf(target)))))
        .map((target) => `${file} imports ${target}`);
    });
    expect(offenders).toEqual([]);
  });

  it('where a turn posts and what its origin hears back are decided in one place each (turn/place.ts, turn/reply.ts)', () => {
    const readsOrigin = /switch \(origin\.kind\)/;
    const offenders = productionFiles().filter((file) => readsOrigin.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(offenders.sort()).toEqual(['src/discord/turn/place.ts', 'src/discord/turn/reply.ts']);
  });
});

/** Production code: what the homes below are about (tests and benches may open a raw connection to break it). */
const PRODUCTION = ['src', 'tools', 'app', 'commands'];
const productionFiles = () => PRODUCTION.flatMap(sourceFiles);
const importers = (target: (t: string) => boolean) => productionFiles().filter((file) => importsOf(file).some(target));
const mentioning = (pattern: RegExp) => productionFiles().filter((file) => pattern.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));

describe('homes for shared parts', () => {
  it('SQLite is opened only through src/storage/sqlite-connection.ts (thread memory only through its Keyv adapter)', () => {
    expect(importers((t) => t === 'sqlite3')).toEqual(['src/storage/sqlite-connection.ts']);
    expect(importers((t) => t === '@keyv/sqlite')).toEqual(['src/storage/sqlite/key-value.ts']);
  });

  it('the network client lives in src/net/: nothing else opens sockets, resolves names or makes HTTP requests', () => {
    const raw = (t: string) => /^(node:)?(net|dns|http|https|tls)$/.test(t) || t === 'undici';
    // The health endpoints and the REST proxy serve HTTP (node:http); they fetch nothing on a model's or a member's say-so.
    const SERVERS = new Set(['src/ops/health-server.ts', 'app/rest-proxy.ts']);
    expect(importers(raw).filter((file) => !inside(file, 'src/net') && !SERVERS.has(file))).toEqual([]);
    const client = (t: string) => /(^|\/)(safe-http|address-policy|read-capped)\.ts$/.test(t);
    expect(productionFiles().filter((file) => client(file) && !inside(file, 'src/net'))).toEqual([]);
  });

  it('untrusted documents are read only in the document reader\'s worker: its modules alone reach linkedom, Readability, pdf.js and mammoth', () => {
    const parsers = (t: string) => ['linkedom', '@mozilla/readability', 'unpdf', 'mammoth'].includes(t);
    const readers = ['src/knowledge/parse/docx-html.ts', 'src/knowledge/parse/html-article.ts', 'src/knowledge/parse/pdf-pages.ts'];
    expect(importers(parsers).sort()).toEqual(readers);
    // Only the worker's entry and its HTML reader import them: nothing the bot's own process loads.
    const workerSide = ['src/knowledge/parse/parse-worker.ts', 'src/knowledge/parse/read-html.ts'];
    expect(importers((t) => [...readers, ...workerSide].includes(t)).filter((file) => !workerSide.includes(file))).toEqual([]);
  });

  it('the knowledge base reads its documents itself: nothing under src/knowledge/ imports tools/', () => {
    expect(violations('src/knowledge', (t) => !inside(t, 'tools'))).toEqual([]);
  });

  it('text hygiene has one home: src/agent/clean-text.ts', () => {
    expect(mentioning(/function clean\w*Text\b|\\u\{E00[0-7][0-9A-F]\}|\\u202[A-E]/i)).toEqual(['src/agent/clean-text.ts']);
  });

  it('token counting, trimming and the context fit live in src/state/context/', () => {
    expect(importers((t) => t.startsWith('gpt-tokenizer')).filter((file) => !inside(file, 'src/state/context'))).toEqual([]);
    const names = ['token-counter.ts', 'trim-history.ts', 'context-fit.ts', 'message-sequence.ts'];
    expect(productionFiles().filter((file) => names.includes(path.basename(file)) && !inside(file, 'src/state/context'))).toEqual([]);
  });

  it('"engine" means the ReAct engine: no file outside src/agent/ is named after one', () => {
    expect(productionFiles().filter((file) => /(^|-)engines?(-|\.ts$)/.test(path.basename(file)) && !inside(file, 'src/agent'))).toEqual([]);
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

describe('import circles', () => {
  const graph = importGraph('app', 'commands', 'src', 'tools');

  it('finds a circle when there is one (the checker itself works)', () => {
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', []]]))).toEqual(['a → b → c → a']);
    expect(circles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
    expect(graph.get('src/discord/bot.ts')).toContain('src/discord/interactions.ts');
  });

  it('no file in app/, commands/, src/ or tools/ reaches itself through imports (type-only ones included)', () => {
    expect(circles(graph)).toEqual([]);
  });
});

/** The names a file imports from each module (`import { a, type B as C } from './x.js'`: a and B), resolved like `importsOf`. */
function namedImportsOf(file: string): Array<{ name: string; from: string }> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s+['"]([^'"]+)['"]/g)].flatMap((m) => {
    const from = m[2]!.startsWith('.') ? path.relative(ROOT, path.resolve(ROOT, path.dirname(file), m[2]!)).replace(/\.js$/, '.ts') : m[2]!;
    return m[1]!.split(',').map((n) => n.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!).filter(Boolean).map((name) => ({ name, from }));
  });
}

/** Who, besides the pipeline, takes one of the steps that begin a turn: admission (`decide`), the record, the run. */
function turnStartersBesidesThePipeline(files: readonly string[]): string[] {
  const steps = [
    { name: 'decide', from: 'src/discord/turn/claim.ts' },
    { name: 'makeRecord', from: 'src/discord/turn/record.ts' },
    { name: 'runTurn', from: 'src/discord/turn/run-turn.ts' },
  ];
  return files
    .filter((file) => file !== 'src/discord/turn/pipeline.ts')
    .flatMap((file) => namedImportsOf(file).filter((i) => steps.some((s) => s.name === i.name && s.from === i.from)).map((i) => `${file} imports ${i.name}`));
}

describe('folders', () => {
  const valueGraph = (dynamic: boolean) => {
    const files = ['app', 'commands', 'src', 'tools'].flatMap(sourceFiles);
    const known = new Set(files);
    return new Map(files.map((file) => [file, valueImportsOf(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), { dynamic }).filter((t) => known.has(t))]));
  };

  it('finds a chain that leaves a folder and comes back (the checker itself works)', () => {
    expect(folderChains(new Map([['a/x.ts', ['b/y.ts']], ['b/y.ts', ['a/z.ts']], ['a/z.ts', []]]))).toEqual(['a: a/x.ts → b/y.ts → a/z.ts']);
    expect(folderChains(new Map([['a/x.ts', ['a/b/y.ts', 'c/z.ts']], ['a/b/y.ts', ['c/z.ts']], ['c/z.ts', []]]))).toEqual([]);
    expect(valueImportsOf('src/a.ts', "import type { A } from './b.js';\nimport { type C } from './c.js';\nconst d = () => import('./d.js');", { dynamic: true })).toEqual(['src/c.ts', 'src/d.ts']);
  });

  it('no chain of value imports leaves a folder and comes back into it (type-only imports aside)', () => {
    // Three imports that closed such chains before this rule, outside storage: the composition reaching
    // into tools/ from src/core.ts, the document parser's worker reaching back into tools/, and
    // src/discord/members.ts using posting/. Each is a folder to untangle, not a pattern to copy.
    const KNOWN = new Set(['src/core.ts → tools/index.ts', 'src/knowledge/parse/document-parser.ts → tools/calculator/worker-entry.ts', 'src/discord/members.ts → src/discord/posting/split-message.ts']);
    const graph = new Map([...valueGraph(true)].map(([file, targets]) => [file, targets.filter((t) => !KNOWN.has(`${file} → ${t}`))]));
    expect(folderChains(graph)).toEqual([]);
  });

  it('a backend\'s driver loads only when a store opens on it: no entry point imports one before', () => {
    const DRIVER = /^(pg|sqlite3|redis|@keyv\/(sqlite|redis|postgres)|rate-limiter-flexible)$/;
    const graph = valueGraph(false);
    const loaded = new Set<string>();
    const walk = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const target of graph.get(file) ?? []) walk(target);
    };
    ['app/main.ts', 'app/deploy-commands.ts', 'app/rest-proxy-main.ts', 'src/cli/ask.ts', 'src/cli/kb.ts', 'src/cli/mcp.ts'].forEach(walk);
    const drivers = [...loaded].flatMap((file) =>
      valueImportsOf(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), { dynamic: false }).filter((t) => DRIVER.test(t)).map((t) => `${file} loads ${t}`));
    expect(drivers).toEqual([]);
  });
});

describe('storage', () => {
  const words = new Map(BACKENDS.flatMap((b) => [[b.kind, b.kind], ...b.schemes.map((s) => [s, b.kind] as const)] as const));
  // "memory" also names member memory: a bare 'memory' is a kind only where it decides one.
  const ordinary = new Set(['memory']);

  it('finds the kinds a piece of code names (the checker itself works)', () => {
    const named = (code: string) => [...namedKinds(code, words, ordinary)].sort();
    expect(named("if (target.kind === 'redis') x(); // or 'sqlite'")).toEqual(['redis']);
    expect(named("const local = /^(sqlite|memory):/i.test(url); const s = /^rediss?:/i;")).toEqual(['memory', 'redis', 'sqlite']);
    expect(named("if (sub === 'memory') setName('memory'); const url = 'sqlite://data/x.sqlite';")).toEqual([]);
  });

  it('the storage kinds are named in one module: the registry lists the backend folders, and each folder names only its own kind', () => {
    const offenders = productionFiles().flatMap((file) => {
      if (file === 'src/storage/registry.ts') return [];
      const own = /^src\/storage\/([^/]+)\//.exec(file)?.[1];
      return [...namedKinds(fs.readFileSync(path.join(ROOT, file), 'utf8'), words, ordinary)].filter((kind) => kind !== own).map((kind) => `${file} names ${kind}`);
    });
    expect(offenders).toEqual([]);
  });

  it('the storage helpers have one home each: transactions, the SQLite first open, table-creation races, the Redis call bound', () => {
    expect(mentioning(/\.query\(\s*['"`]BEGIN/)).toEqual(['src/storage/postgres-transaction.ts']);
    // The Keyv adapter's own connection sets WAL through its setup statements; every other open, here.
    expect(mentioning(/journal_mode/).sort()).toEqual(['src/storage/sqlite-connection.ts', 'src/storage/sqlite/log-statements.ts']);
    expect(mentioning(/\bmkdir\b/).filter((file) => inside(file, 'src/storage', 'src/state', 'src/knowledge'))).toEqual(['src/storage/sqlite-connection.ts']);
    expect(mentioning(/23505|42P07/)).toEqual(['src/storage/postgres-schema.ts']);
    expect(mentioning(/function withTimeout\b/)).toEqual(['src/storage/redis/with-timeout.ts']);
  });
});

describe('the Discord side has one spine', () => {
  it('a turn starts only through the pipeline: nothing outside src/discord/turn/ imports its runner, its claim or the follow-up batches', () => {
    const inner = (t: string) => ['src/discord/turn/run-turn.ts', 'src/discord/turn/claim.ts', 'src/discord/turn/follow-up-batches.ts', 'src/discord/turn/follow-ups.ts'].includes(t);
    const outside = productionFiles().filter((file) => !inside(file, 'src/discord/turn'));
    expect(outside.flatMap((file) => importsOf(file).filter(inner).map((t) => `${file} imports ${t}`))).toEqual([]);
  });

  it('reads the names a file imports (the checker itself works)', () => {
    expect(namedImportsOf('src/discord/turn/pipeline.ts')).toEqual(expect.arrayContaining([
      { name: 'decide', from: 'src/discord/turn/claim.ts' },
      { name: 'makeRecord', from: 'src/discord/turn/record.ts' },
      { name: 'runTurn', from: 'src/discord/turn/run-turn.ts' },
      { name: 'TurnOrigin', from: 'src/discord/turn/origin.ts' },
    ]));
  });

  it("every turn goes through the pipeline's one start: no module but the pipeline admits (`decide`), makes a turn record or runs one", () => {
    expect(turnStartersBesidesThePipeline(productionFiles())).toEqual([]);
  });

  it('waiting turns hand a decided turn back as an origin: they import nothing of the pipeline (its sequence, runner, claim, place, reply or follow-ups)', () => {
    const pipeline = ['pipeline', 'run-turn', 'claim', 'place', 'reply', 'follow-ups', 'follow-up-batches'].map((f) => `src/discord/turn/${f}.ts`);
    const waiting = ['src/discord/turn/waiting-turns.ts', 'src/discord/turn/waiting-endings.ts', 'src/discord/turn/approvals.ts'];
    expect(waiting.flatMap((file) => importsOf(file).filter((t) => pipeline.includes(t)).map((t) => `${file} imports ${t}`))).toEqual([]);
  });

  it('the services are a few groups by concern (at most six), not a bag of members', () => {
    const text = fs.readFileSync(path.join(ROOT, 'src/discord/services.ts'), 'utf8');
    const body = /export interface BotServices \{([^}]*)\}/.exec(text)?.[1];
    expect(body).toBeDefined();
    const members = [...body!.matchAll(/^\s*(?:readonly\s+)?(\w+)\??\s*[:(]/gm)].map((m) => m[1]);
    expect(members.length).toBeGreaterThanOrEqual(4);
    expect(members.length).toBeLessThanOrEqual(6);
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
