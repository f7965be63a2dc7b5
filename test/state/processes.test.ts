import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../src/state/types.js';
import { purgeNamespace, targets, uniqueNamespace } from './helpers/targets.js';
import { openStores, type Stores } from './helpers/stores.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const WRITER = path.join(here, 'fixtures', 'writer.ts');

interface Writer {
  child: ChildProcess;
  /** Appends the writer has seen resolve. */
  acknowledged(): number;
  ready: Promise<void>;
  /** Stepwise writers: append one more batch. */
  go(): void;
  /** Stepwise writers: no more batches. */
  end(): void;
  waitForAcks(n: number): Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function startWriter(options: Record<string, unknown>): Writer {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, JSON.stringify(options)], {
    cwd: path.resolve(here, '../..'),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let acks = 0;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let stderr = '';
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    if (/^ready$/m.test(text)) markReady();
    acks += (text.match(/^ok \d+$/gm) ?? []).length;
    for (const w of waiters.filter((w) => acks >= w.n)) w.resolve();
  });
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    child,
    ready,
    go: () => child.stdin!.write('go\n'),
    end: () => child.stdin!.end(),
    acknowledged: () => acks,
    waitForAcks: (n) =>
      new Promise<void>((resolve, reject) => {
        if (acks >= n) return resolve();
        waiters.push({ n, resolve });
        void exit.then((e) => reject(new Error(`writer exited (${e.code ?? e.signal}) after ${acks} appends: ${e.stderr}`)));
      }),
    exit,
  };
}

/** Split a thread written by fixtures/writer.ts into its batches, checking each is whole. */
function batchesOf(messages: StoredMessage[]): Array<{ label: string; index: number }> {
  expect(messages.length % 4).toBe(0);
  const batches: Array<{ label: string; index: number }> = [];
  for (let i = 0; i < messages.length; i += 4) {
    const [question, call, result, reply] = messages.slice(i, i + 4);
    const [label, index] = (question!.content as string).split(' ');
    expect([question!.role, call!.role, result!.role, reply!.role]).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(reply!.content).toBe(`${label} ${index} done`);
    batches.push({ label: label!, index: Number(index) });
  }
  return batches;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

for (const target of await targets('processes', ['sqlite', 'redis', 'postgres'])) {
  describe.runIf(target.available)(`separate processes writing to ${target.kind}`, () => {
    const namespace = uniqueNamespace(`proc-${target.kind}`);
    let stores: Stores;
    beforeAll(async () => {
      stores = await openStores(target.url, { namespace });
    });
    afterAll(async () => {
      await purgeNamespace(stores.backend, namespace);
      await stores.backend.close();
    });

    it('keeps every append when two processes write the same thread at once', async () => {
      const common = { url: target.url, namespace, threadId: '500', count: 60, payloadChars: 200, stepwise: true };
      const writers = [startWriter({ ...common, label: 'A' }), startWriter({ ...common, label: 'B' })];
      await Promise.all(writers.map((w) => w.ready));
      // Sixty rounds; in each, both processes append at the same moment and race for the same slot.
      for (const round of range(60)) {
        for (const w of writers) w.go();
        await Promise.all(writers.map((w) => w.waitForAcks(round + 1)));
      }
      for (const w of writers) w.end();
      const exits = await Promise.all(writers.map((w) => w.exit));
      expect(exits.map((e) => e.code), exits.map((e) => e.stderr).join('\n')).toEqual([0, 0]);

      const batches = batchesOf((await stores.conversations.load('500')).messages);
      expect(batches).toHaveLength(120);
      for (const label of ['A', 'B']) {
        expect(batches.filter((b) => b.label === label).map((b) => b.index)).toEqual(range(60));
      }
      // Both really wrote at the same time: each round's two batches sit side by side, in either order.
      for (const round of range(60)) {
        const pair = batches.slice(round * 2, round * 2 + 2);
        expect(pair.map((b) => b.label).sort()).toEqual(['A', 'B']);
        expect(pair.map((b) => b.index)).toEqual([round, round]);
      }
    }, 60_000); // sixty round trips to two child processes: seconds on a machine busy with other suites

    it('keeps the history intact up to the last finished append when the writer is killed mid-write', async () => {
      const writer = startWriter({ url: target.url, namespace, threadId: '501', label: 'K', count: 1_000_000, payloadChars: 50_000 });
      await writer.waitForAcks(10);
      writer.child.kill('SIGKILL');
      const { signal } = await writer.exit;
      const acked = writer.acknowledged();
      expect(signal).toBe('SIGKILL');

      const batches = batchesOf((await stores.conversations.load('501')).messages);
      // Every acknowledged append is there; at most the one in flight at the kill landed too.
      expect(batches.length).toBeGreaterThanOrEqual(acked);
      expect(batches.length).toBeLessThanOrEqual(acked + 1);
      expect(batches.map((b) => b.index)).toEqual(range(batches.length));

      await stores.conversations.append('501', [{ role: 'user', content: 'after the crash' }]);
      const after = await stores.conversations.load('501');
      expect(after.messages.at(-1)!.content).toBe('after the crash');
    });
  });
}
