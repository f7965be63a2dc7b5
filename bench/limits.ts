/**
 * What the usage limiter adds: to every request, admit (a claim: tokens today less what running
 * questions hold, a concurrency slot, an estimate set aside; then the hourly window) + release; to
 * every model call, the check before it (one read of the shared budgets) and the record after it (the
 * call's tokens for member, channel and server, settling the claim), in µs, on every backend that is reachable (memory, SQLite in a temp dir, Redis and PostgreSQL on 127.0.0.1). The
 * baseline, measured in the same run on the same backend, is one plain Keyv get. Run alone with
 * `npx tsx bench/limits.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_TIMEOUTS } from '../src/storage/key-value.js';
import type { Backend } from '../src/storage/registry.js';
import { openBackend } from '../src/storage/open.js';
import { CLAIM_TABLE, USAGE_TABLE, WINDOW_TABLE } from '../src/storage/sql/usage-statements.js';
import { createUsageLimiter, priceTable, type EffectiveLimits } from '../src/state/usage/index.js';
import { fmt, median, percentile, type BenchSection } from './stats.js';

const LIMITS: EffectiveLimits = { runsPerHour: 1_000_000, concurrentRuns: 2, userDailyTokens: 1e12, guildDailyTokens: 1e12, exempt: false };
const MEMBERS = 50;
/** Model calls per request: each is a check before and a record after. */
const CALLS = 3;

async function openIfReachable(url: string, dir: string): Promise<Backend | undefined> {
  try {
    return await openBackend(url, dir, { timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 1_000 }, onBackgroundError: () => {} });
  } catch {
    return undefined;
  }
}

const us = (ms: number) => ms * 1_000;

/** One backend's row: baseline get, then admit + record + release, each timed per request. */
async function benchBackend(backend: Backend): Promise<BenchSection['rows'][number]> {
  const namespace = `bench-limits-${process.pid}-${Date.now().toString(36)}`;
  const limiter = await createUsageLimiter({ backend, namespace, now: () => new Date(), prices: priceTable(), leaseMs: 300_000, reserveTokens: 9_000 });
  try {
    await backend.keyv.set(`${namespace}:probe`, { hello: 'world' });
    const baseline: number[] = [];
    const admit: number[] = [];
    const perCall: number[] = [];
    const total: number[] = [];
    // Warm both paths (JIT, prepared statements, connections) before measuring.
    for (let i = 0; i < 50; i++) await backend.keyv.get(`${namespace}:probe`);
    const budgetMs = backend.kind === 'memory' ? 1_000 : 2_500;
    const deadline = performance.now() + budgetMs;
    let n = 0;
    for (; performance.now() < deadline && n < 5_000; n++) {
      let t = performance.now();
      await backend.keyv.get(`${namespace}:probe`);
      baseline.push(performance.now() - t);

      t = performance.now();
      const admission = await limiter.admit({ guildId: 'G1', channelId: `C${n % 5}`, userId: `U${n % MEMBERS}` }, LIMITS);
      const admitted = performance.now();
      if (!admission.ok) throw new Error(`bench request refused by ${admission.limit}`);
      const calls: number[] = [];
      for (let c = 0; c < CALLS; c++) {
        const before = performance.now();
        const refused = await admission.ticket.check();
        if (refused) throw new Error(`bench call refused by ${refused.limit}`);
        await admission.ticket.record({ promptTokens: 1_200, completionTokens: 300, totalTokens: 1_500 }, 'gpt-4o-mini');
        calls.push(performance.now() - before);
      }
      await admission.ticket.release();
      const done = performance.now();
      if (n >= 20) {
        admit.push(admitted - t);
        perCall.push(...calls);
        total.push(done - t);
      } else baseline.pop();
    }
    const base = median(baseline);
    return {
      backend: backend.kind,
      requests: admit.length,
      'Keyv get (baseline) median µs': fmt(us(base), 0),
      'per model call (check + record) median / p99 µs': `${fmt(us(median(perCall)), 0)} / ${fmt(us(percentile(perCall, 99)), 0)}`,
      'per call / baseline': `${fmt(median(perCall) / base, 1)}×`,
      'admit median / p99 µs': `${fmt(us(median(admit)), 0)} / ${fmt(us(percentile(admit, 99)), 0)}`,
      [`request (admit + ${CALLS} calls + release) / baseline`]: `${fmt(median(total) / base, 1)}×`,
    };
  } finally {
    await limiter.close();
    await purge(backend, namespace).catch(() => undefined);
  }
}

async function purge(backend: Backend, namespace: string): Promise<void> {
  const native = backend.native;
  if (native.kind === 'redis') {
    for await (const keys of native.client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) if (keys.length > 0) await native.client.del(keys);
  } else if (native.kind === 'postgres') {
    await native.pool.query(`DELETE FROM ${USAGE_TABLE} WHERE ns = $1`, [namespace]);
    await native.pool.query(`DELETE FROM ${CLAIM_TABLE} WHERE ns = $1`, [namespace]);
    await native.pool.query(`DELETE FROM ${WINDOW_TABLE} WHERE key LIKE $1`, [`${namespace}:%`]);
    await native.pool.query('DELETE FROM public.keyv WHERE key LIKE $1', [`${namespace}:%`]);
  }
}

/** The limits bench section: one row per reachable backend. */
export async function benchLimits(): Promise<BenchSection> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-limits-'));
  const rows: BenchSection['rows'] = [];
  const skipped: string[] = [];
  const urls = ['memory:', 'sqlite://limits.sqlite', process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'];
  for (const url of urls) {
    const backend = await openIfReachable(url, dir);
    if (!backend) {
      skipped.push(url);
      continue;
    }
    try {
      rows.push(await benchBackend(backend));
    } finally {
      await backend.close();
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    name: 'Usage limits: cost per model call (check + record) and per request (admit + release)',
    rows,
    notes: [
      `One model call = the check before it (one read: tokens today and what live claims hold) + the record after it (one write: the member, channel and server rows and the claim's usage). One request = admit (a claim taken in one transaction or script, then the hourly window) + ${CALLS} calls + release, sequentially, ${MEMBERS} members in one server, caps on. Baseline: one Keyv get on the same backend in the same run. On SQLite the claim, each record, the window and the release are each a committed write (the usage connection runs with synchronous=NORMAL in WAL mode).${skipped.length ? ` Not reachable, skipped: ${skipped.join(', ')}.` : ''}`,
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { printSection } = await import('./stats.js');
  printSection(await benchLimits());
  process.exit(0);
}
