/**
 * Member memory written by two bot processes at once: released round by round so each pair of adds
 * races, no entry is lost under the cap, and past it exactly 50 are stored (the ones their writers were
 * told were added), on every shared backend.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS } from '../../src/storage/key-value.js';
import type { Backend } from '../../src/storage/registry.js';
import { openBackend } from '../../src/storage/open.js';
import { createMemberMemoryStore } from '../../src/state/member-memory/index.js';
import { purgeNamespace, targets, uniqueNamespace } from './helpers/targets.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const WRITER = path.join(here, 'fixtures', 'memory-writer.ts');

/** A writer process: `go()` releases one add; `outcomes` are its printed lines. */
function startWriter(options: Record<string, unknown>) {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, JSON.stringify(options)], { cwd: path.resolve(here, '../..'), stdio: ['pipe', 'pipe', 'pipe'] });
  const outcomes: string[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let stderr = '';
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'ready') markReady();
    else if (/^(added|full|exists) /.test(line)) outcomes.push(line);
    for (const w of waiters.filter((w) => outcomes.length >= w.n)) w.resolve();
  });
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  return {
    ready,
    outcomes,
    go: () => child.stdin!.write('go\n'),
    end: () => child.stdin!.end(),
    waitFor: (n: number) => new Promise<void>((resolve, reject) => {
      if (outcomes.length >= n) return resolve();
      waiters.push({ n, resolve });
      void exit.then((e) => reject(new Error(`writer exited (${e.code}) after ${outcomes.length} adds: ${e.stderr}`)));
    }),
    exit,
  };
}

for (const target of await targets('memory-processes', ['sqlite', 'redis', 'postgres'])) {
  describe.runIf(target.available)(`two processes adding memory entries on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`memproc-${target.kind}`);
    let backend: Backend;
    beforeAll(async () => {
      backend = await openBackend(target.url, process.cwd(), { timeouts: DEFAULT_TIMEOUTS, onBackgroundError: () => {} });
    });
    afterAll(async () => {
      await purgeNamespace(backend, namespace);
      await backend.close();
    });

    it('loses no entry, and stores exactly 50 of 60 adds racing for the last places', async () => {
      const common = { url: target.url, namespace, guildId: '900000000000000001', userId: '42', count: 30 };
      const writers = [startWriter({ ...common, label: 'A' }), startWriter({ ...common, label: 'B' })];
      await Promise.all(writers.map((w) => w.ready));
      for (let round = 1; round <= 30; round++) {
        for (const w of writers) w.go();
        await Promise.all(writers.map((w) => w.waitFor(round)));
      }
      for (const w of writers) w.end();
      const exits = await Promise.all(writers.map((w) => w.exit));
      expect(exits.map((e) => e.code), exits.map((e) => e.stderr).join('\n')).toEqual([0, 0]);

      const stored = (await createMemberMemoryStore({ backend, namespace, now: () => new Date() }).list(common.guildId, common.userId)).map((e) => e.text);
      const outcomes = writers.flatMap((w) => w.outcomes);
      const added = outcomes.filter((o) => o.startsWith('added ')).map((o) => o.slice('added '.length));
      expect(stored).toHaveLength(50);
      expect([...added].sort()).toEqual([...stored].sort());
      expect(outcomes.filter((o) => o.startsWith('full '))).toHaveLength(10);
      // The first 25 rounds (50 adds, under the cap) are all there, from both writers.
      for (const label of ['A', 'B']) for (let i = 0; i < 25; i++) expect(stored).toContain(`${label} ${i}`);
    }, 60_000);
  });
}
