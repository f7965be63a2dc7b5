/**
 * The import rules of DESIGN.md, checked on the source itself: dependencies point one way
 * (app → commands → src/discord → src/agent; src/llm and tools implement the engine's interfaces;
 * src/state beside; src/policy pure), so a change that reaches backwards fails here, not in review.
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

describe('the rules of a place have one home', () => {
  const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

  it('src/policy/ is rule logic over values: it takes no store (settings, usage, a backend)', () => {
    const offenders = sourceFiles('src/policy').filter((file) => /\b(GuildSettingsStore|ConversationStore|UsageLimiter|Backend|Keyv)\b/.test(read(file)));
    expect(offenders).toEqual([]);
  });

  it('outside storage, guild settings are read for a run only through the rules object (src/discord/rules.ts and its tool policy)', () => {
    const home = new Set(['src/discord/rules.ts', 'src/discord/tool-policy.ts']);
    const reads = /\bguildSettings\.get\(|\bstore\.get\(\s*scope\.guildId\s*\)/;
    const offenders = [...sourceFiles('src'), ...sourceFiles('app')]
      .filter((file) => !file.startsWith('src/state/') && !home.has(file) && reads.test(read(file)));
    expect(offenders).toEqual([]);
  });
});
