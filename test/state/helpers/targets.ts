/**
 * The backends the state tests run against. Memory and SQLite are always there; Redis and PostgreSQL
 * are probed on 127.0.0.1 and, when absent, their suites are skipped with the reason printed. On CI
 * (`CI=true`) both servers are always provided, so an unreachable one fails the run instead: a skip
 * there would hide a broken service, or a broken test setup, behind a green build.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import type KeyvRedis from '@keyv/redis';
import type { RedisClientType } from '@keyv/redis';
import type { Backend, BackendKind } from '../../../src/storage/registry.js';
import { createStorage } from '../../../src/state/create-storage.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Target {
  kind: BackendKind;
  url: string;
  available: boolean;
  reason?: string;
}

/** A key prefix no other run (or file in this run) uses. */
export function uniqueNamespace(label: string): string {
  return `t-${label}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

/** A fresh temporary directory, removed after the test file that asked for it. */
export function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `threadwise-${label}-`));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  // Inside a test, clean up when it ends; while a file is being collected, after the file.
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove);
  }
  return dir;
}

/** A fresh SQLite URL in a temporary directory. */
export function tempSqliteUrl(label: string): { url: string; dir: string } {
  const dir = tempDir(label);
  return { url: `sqlite://${path.join(dir, 'nested', 'threadwise.sqlite')}`, dir };
}

/** On CI the servers are part of the machine: their absence is a failure, not a reason to skip. */
export function requireServers(): boolean {
  return process.env.CI === 'true';
}

async function probe(url: string): Promise<string | undefined> {
  try {
    const storage = await createStorage({ keyvUrl: url, historyTokenBudget: 8_000 }, { timeouts: { connectMs: 1_000 }, logger: () => {} });
    await storage.close();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A server backend at `url`, probed; absent: skipped with the reason printed, or on CI a failure. */
export async function serverTarget(label: string, kind: 'redis' | 'postgres', url: string): Promise<Target> {
  const reason = await probe(url);
  if (reason && requireServers()) throw new Error(`[${label}] ${kind} at ${url} is not reachable, and CI=true requires it: ${reason}`);
  if (reason) console.warn(`[${label}] skipping ${kind} tests: ${url} is not available (${reason})`);
  return { kind, url, available: !reason, reason };
}

/** Every backend, with availability probed; prints why a server backend is skipped. */
export async function targets(label: string, kinds: BackendKind[] = ['memory', 'sqlite', 'redis', 'postgres']): Promise<Target[]> {
  const out: Target[] = [];
  for (const kind of kinds) {
    if (kind === 'memory') out.push({ kind, url: 'memory:', available: true });
    if (kind === 'sqlite') out.push({ kind, url: tempSqliteUrl(label).url, available: true });
    if (kind === 'redis') out.push(await serverTarget(label, kind, REDIS_URL));
    if (kind === 'postgres') out.push(await serverTarget(label, kind, POSTGRES_URL));
  }
  return out;
}

/**
 * Delete every key of a namespace through an open backend, so runs against the shared servers leave
 * nothing behind. (A second PostgreSQL adapter on the same URL would share, and on close end, the pool.)
 */
export async function purgeNamespace(backend: Backend, namespace: string): Promise<void> {
  if (backend.kind === 'redis') {
    const client = (backend.keyv.store as KeyvRedis<unknown>).client as RedisClientType;
    for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) {
      if (keys.length > 0) await client.del(keys);
    }
  } else if (backend.kind === 'postgres') {
    const store = backend.keyv.store as { query: (sql: string, params: unknown[]) => Promise<unknown> };
    await store.query('DELETE FROM public.keyv WHERE key LIKE $1', [`${namespace}:%`]);
  }
}
