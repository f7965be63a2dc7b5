/**
 * The import rules of DESIGN.md, checked on the source itself: dependencies point one way (the layers
 * below: app → commands → src/discord → src/agent; src/llm and tools implement the engine's interfaces;
 * src/state, src/storage and src/knowledge beside; src/policy pure), no file reaches itself through
 * imports and no chain of imports leaves a folder and comes back, so a change that reaches backwards
 * fails here, not in review. The homes of shared rules are checked in architecture-homes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { circles, folderReturns, importGraph, importsOf, inside, productionFiles, read, sourceFiles } from './import-graph.js';

function violations(dir: string, allowed: (target: string, file: string) => boolean): string[] {
  return sourceFiles(dir).flatMap((file) => importsOf(file).filter((target) => !allowed(target, file)).map((target) => `${file} imports ${target}`));
}

const isPackage = (target: string) => !target.includes('/') || !target.startsWith('src') && !target.startsWith('app') && !target.startsWith('commands') && !target.startsWith('tools') && !/^(test|bench)\//.test(target);

/**
 * Known, and being removed: src/knowledge/ reads HTML and documents with code under tools/ (html-text.ts,
 * article-text.ts, the calculator's worker entry) while tools/ use the knowledge base. Issue 44 moves
 * document parsing into src/knowledge/parse/; that merge deletes this entry (a test below fails once
 * nothing needs it). Each entry excuses the imports from files of `from` to files of `to`, no others.
 */
const KNOWN_BACKWARD_IMPORTS: ReadonlyArray<{ from: string; to: string; issue: number }> = [];
const knownBackward = (file: string, target: string) => KNOWN_BACKWARD_IMPORTS.some((k) => inside(file, k.from) && inside(target, k.to));

describe('import direction', () => {
  it('reads every kind of import (the checker itself works)', () => {
    expect(importsOf('app/app.ts')).toContain('commands/index.ts');
    expect(importsOf('src/agent/engine.ts')).toContain('src/agent/run-loop.ts');
    expect(importsOf('src/storage/sqlite/declaration.ts')).toContain('src/storage/sqlite/index.ts'); // `await import()`
    expect(importsOf('src/policy/answer-modes.ts')).toContain('src/state/guild-settings-schema.ts');
    expect(importsOf('src/policy/answer-modes.ts', 'values')).not.toContain('src/state/guild-settings-schema.ts'); // `import type`
    expect(importsOf('src/policy/answer-modes.ts', 'values')).toContain('src/policy/channel-settings.ts');
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

  it('the vocabulary of skills (src/skills/) is the skills\' own: no discord.js, no store, only its own files, the text cleaner and the caps', () => {
    const allowed = (t: string) => (isPackage(t) ? t !== 'discord.js' && !/keyv|pg|sqlite3|redis/.test(t) : inside(t, 'src/skills') || t === 'src/agent/clean-text.ts' || t === 'src/agent/text-caps.ts');
    expect(violations('src/skills', allowed)).toEqual([]);
  });

  it('storage, the model client, the tools and the MCP client never reach up into Discord or the commands', () => {
    for (const dir of ['src/state', 'src/storage', 'src/knowledge', 'src/net', 'src/llm', 'tools', 'src/ops', 'src/mcp', 'src/schedules', 'src/skills', 'src/workers']) {
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

/**
 * The layers of the project, top first, with every folder (and each file of src/'s top level) in one: an
 * import, type-only ones included, goes to its own layer or a lower one, never up. Within a layer the
 * folders may use each other, as long as no chain comes back (checked below).
 */
const PROJECT_LAYERS: ReadonlyArray<readonly string[]> = [
  ['app', 'src/cli'], // the composition roots: the bot and the terminal
  ['commands', 'src/console', 'src/eval'], // what people use: one file per slash command, the moderators' web console, the evaluation runner and its suite format
  ['src/discord'], // events into thread replies
  ['src/core.ts', 'src/config.ts'], // the engine assembled from the validated settings
  ['src/policy', 'src/schedules'], // rule logic over values (pure)
  ['src/llm', 'tools', 'src/mcp', 'src/ops'], // what implements (or measures) the engine's interfaces
  ['src/knowledge', 'src/state', 'src/storage', 'src/net', 'src/workers'], // beside: the stores, the knowledge base, the network client, worker processes
  ['src/skills'], // the vocabulary of skills: what a skill may be, its inputs, SKILL.md (over the text cleaner alone)
  ['src/agent'], // the engine
  ['src/errors.ts', 'src/logger.ts', 'src/duration.ts'], // plain helpers
];
const projectLayerOf = (file: string) => PROJECT_LAYERS.findIndex((layer) => layer.some((home) => inside(file, home)));

describe('the layers of the project', () => {
  it('every file of app/, commands/, src/ and tools/ has its place in the layers', () => {
    expect(productionFiles().filter((file) => projectLayerOf(file) === -1)).toEqual([]);
  });

  it('no import runs back up a layer (the engine does not reach the Discord side, tools do not reach the commands, ...)', () => {
    const known = new Set(productionFiles());
    // A part takes the type of its own settings from config.ts (the values are handed to it): a type, not a reach upward.
    const settingsType = (file: string, target: string) => target === 'src/config.ts' && !importsOf(file, 'values').includes(target);
    const upward = productionFiles().flatMap((file) => importsOf(file)
      .filter((target) => known.has(target) && projectLayerOf(target) < projectLayerOf(file) && !settingsType(file, target) && !knownBackward(file, target))
      .map((target) => `${file} imports ${target}`));
    expect(upward).toEqual([]);
  });
});

describe('the Discord layer by concern', () => {
  /** The folders of src/discord/, from the top: a folder imports only folders below it (and the root's plain helpers). */
  const LAYERS = [['messages', 'buttons', 'schedules'], ['turn'], ['posting', 'rules', 'files', 'runs', 'text', 'memory', 'skills']];
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
    const offenders = productionFiles().filter((file) => readsOrigin.test(read(file)));
    expect(offenders.sort()).toEqual(['src/discord/turn/place.ts', 'src/discord/turn/reply.ts']);
  });
});

describe('import circles', () => {
  const graph = importGraph(['app', 'commands', 'src', 'tools']);
  /** Value imports only: a type-only one is erased at build, so it ties no folders together at run time. */
  const values = importGraph(['app', 'commands', 'src', 'tools'], 'values');
  /** Every folder a chain could leave: app/, commands/, each folder under src/ and tools/ (with its subfolders). src/ itself holds the layers, not one concern. */
  const folders = [...new Set(productionFiles().flatMap((file) => file.split('/').slice(0, -1).map((_, i, dirs) => dirs.slice(0, i + 1).join('/'))))].filter((d) => d !== 'src').sort();
  const withoutKnown = new Map([...values].map(([file, targets]) => [file, targets.filter((target) => !knownBackward(file, target))]));

  it('finds a circle when there is one (the checker itself works)', () => {
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', []]]))).toEqual(['a → b → c → a']);
    expect(circles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
    expect(graph.get('src/discord/bot.ts')).toContain('src/discord/interactions.ts');
  });

  it('no file in app/, commands/, src/ or tools/ reaches itself through imports (type-only ones included)', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('finds a chain that leaves a folder and comes back (the checker itself works)', () => {
    const planted = new Map([['x/a.ts', ['y/b.ts']], ['y/b.ts', ['x/sub/c.ts']], ['x/sub/c.ts', []], ['y/d.ts', ['z/e.ts']], ['z/e.ts', []]]);
    expect(folderReturns(planted, 'x')).toEqual(['x: x/a.ts → y/b.ts → x/sub/c.ts']);
    expect(folderReturns(planted, 'x/sub')).toEqual([]);
    expect(folderReturns(planted, 'y')).toEqual([]);
    expect(folders).toEqual(expect.arrayContaining(['app', 'commands', 'src/discord', 'src/discord/posting', 'tools', 'tools/calculator']));
  });

  it('no chain of value imports leaves a folder and comes back into it (a folder\'s top-level files count as outside its subfolders)', () => {
    expect(folders.flatMap((folder) => folderReturns(withoutKnown, folder))).toEqual([]);
  });

  it('each known backward import is still there: once its issue removes it, its entry goes too', () => {
    for (const k of KNOWN_BACKWARD_IMPORTS) {
      const still = [...values].some(([file, targets]) => inside(file, k.from) && targets.some((t) => inside(t, k.to)));
      expect(still, `nothing in ${k.from}/ imports ${k.to}/ any more: delete its entry (issue ${k.issue}) from KNOWN_BACKWARD_IMPORTS`).toBe(true);
    }
  });
});
