/**
 * One home for each shared rule, checked on the source itself: the settings door, the stores, the
 * network client, text hygiene and the caps on outside text, who may view a channel, the turn's spine,
 * the routing of interactions. A second copy of a rule fails here, not in review.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../src/storage/registry.js';
import { namedKinds, valueImportsOf } from './architecture/value-imports.js';
import { importsOf, inside, productionFiles, read, ROOT, sourceFiles } from './import-graph.js';

const importers = (target: (t: string) => boolean) => productionFiles().filter((file) => importsOf(file).some(target));
const mentioning = (pattern: RegExp) => productionFiles().filter((file) => pattern.test(read(file)));

describe('the rules of a place have one home', () => {
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
    expect(productionFiles().filter((file) => inside(file, 'src/knowledge')).flatMap((file) => importsOf(file).filter((t) => inside(t, 'tools')).map((t) => `${file} imports ${t}`))).toEqual([]);
  });

  it('text hygiene has one home: src/agent/clean-text.ts', () => {
    expect(mentioning(/function clean\w*Text\b|\\u\{E00[0-7][0-9A-F]\}|\\u202[A-E]/i)).toEqual(['src/agent/clean-text.ts']);
  });

  it('every cap on outside text is a name from src/agent/text-caps.ts: no module cuts such text at a number of its own', () => {
    // A literal where text is capped: `${text.slice(0, 200)}` in what is shown, `escapeDisplayName(name, 40)`, `const SNIPPET_CHARS = 300`.
    const CUT = /(?:escapeDisplayName|escapeInline|cleanField|capText|fitMessage|oneLineEntry|entryLabel)\([^()]*, \d|\$\{[^{}]*\.slice\(0, \d|\bconst [A-Z_]*_CHARS = \d/;
    const NOT_TEXT = /toISOString\(\)\.slice|digest\('hex'\)\.slice|randomUUID\(\)\.slice|\bconst MIN_[A-Z_]*_CHARS\b/; // a date, a hash, an id, a floor
    const ELSEWHERE: Record<string, string> = {
      'src/agent/text-caps.ts': 'the table itself',
      'src/schedules': 'the vocabulary of schedules imports nothing; its echo of a mistyped word is its own',
      'src/config.ts': 'the operator\'s settings, not outside text',
      'src/mcp/server-config.ts': 'the operator\'s servers file, not outside text',
      'src/knowledge/knowledge-base.ts': 'its input errors quote the caller\'s own arguments (a collection name, a channel id)',
      'tools/calculator': 'the calculator\'s limits on its expression and result, beside the sandbox they protect',
      'src/knowledge/parse/html-shape.ts': 'the markup size past which no article is looked for: a bound on the reader\'s work, not a cut of text',
      'src/eval': 'the operator\'s own suite files and the report written for them, not text shown in Discord',
    };
    const offenders = productionFiles()
      .filter((file) => !Object.keys(ELSEWHERE).some((home) => inside(file, home)))
      .flatMap((file) => read(file).split('\n').map((line, i) => ({ line, at: `${file}:${i + 1}` })))
      .filter(({ line }) => CUT.test(line) && !NOT_TEXT.test(line))
      .map(({ at, line }) => `${at} ${line.trim()}`);
    expect(offenders).toEqual([]);
  });

  it('who may view a channel is decided in src/discord/posting/permissions.ts alone, and the reply chain, /export, schedules and the knowledge searches ask it there', () => {
    // No other file reads View Channel from a permission set (the bot's own pre-flight names it, as the permissions it lacks).
    expect(mentioning(/PermissionFlagsBits\.ViewChannel\b/)).toEqual(['src/discord/posting/permissions.ts']);
    const askers = importers((t) => t === 'src/discord/posting/permissions.ts');
    // The reply chain, /export, /schedule add and the run's checks, /kb search, /kb add from a message, and a run's canViewChannel.
    expect(askers).toEqual(expect.arrayContaining([
      'src/discord/messages/reply-chain.ts', 'commands/export.ts', 'commands/schedule-add.ts', 'src/discord/schedules/pre-run-checks.ts',
      'commands/kb-subcommands.ts', 'commands/kb-message.ts', 'src/discord/turn/run-turn.ts',
    ]));
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

/** The names a file imports from each module (`import { a, type B as C } from './x.js'`: a and B), resolved like `importsOf`. */
function namedImportsOf(file: string): Array<{ name: string; from: string }> {
  return [...read(file).matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s+['"]([^'"]+)['"]/g)].flatMap((m) => {
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
      return [...namedKinds(read(file), words, ordinary)].filter((kind) => kind !== own).map((kind) => `${file} names ${kind}`);
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

  it('a backend\'s driver loads only when a store opens on it: no entry point imports one before', () => {
    const DRIVER = /^(pg|sqlite3|redis|@keyv\/(sqlite|redis|postgres)|rate-limiter-flexible)$/;
    const files = new Set(productionFiles());
    const staticImports = (file: string) => valueImportsOf(file, read(file), { dynamic: false });
    const loaded = new Set<string>();
    const walk = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const target of staticImports(file)) if (files.has(target)) walk(target);
    };
    ['app/main.ts', 'app/deploy-commands.ts', 'app/rest-proxy-main.ts', 'src/cli/ask.ts', 'src/cli/kb.ts', 'src/cli/mcp.ts'].forEach(walk);
    expect([...loaded].flatMap((file) => staticImports(file).filter((t) => DRIVER.test(t)).map((t) => `${file} loads ${t}`))).toEqual([]);
  });
});

describe('the composition root', () => {
  it('wires and decides nothing: startApp reads in one sitting (at most 100 lines), each part built by a factory of its own', () => {
    const body = /export async function startApp[\s\S]*?\n\}\n/.exec(read('app/app.ts'))?.[0] ?? '';
    expect(body.split('\n').length - 1).toBeGreaterThan(20);
    expect(body.split('\n').length - 1).toBeLessThanOrEqual(100);
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
    const text = read('src/discord/services.ts');
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
    const text = read(bot);
    const hardCoded = [...text.matchAll(/\b\w*_PREFIX\b|['"`][\w-]+:['"`]|\.startsWith\(/g)].map((m) => m[0]);
    expect(hardCoded).toEqual([]);
    const definesPrefix = (file: string) => /\bprefix:\s*['"`]|_PREFIX\s*=/.test(read(file));
    expect(importsOf(bot).filter((t) => t.startsWith('src/') && definesPrefix(t))).toEqual([]);
  });
});

describe('the web console', () => {
  it('sits beside the Discord layer: only the composition root starts it, and only its escaping helpers make markup from text', () => {
    expect(importers((t) => inside(t, 'src/console')).filter((file) => !inside(file, 'src/console', 'app'))).toEqual([]);
    const makesMarkup = /new Html\(/;
    expect(sourceFiles('src/console').filter((file) => makesMarkup.test(read(file))).sort()).toEqual(['src/console/html.ts', 'src/console/markup.ts']);
  });
});
