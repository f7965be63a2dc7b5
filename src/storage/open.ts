/**
 * Open a store family on the backend a URL names. Each opener finds the backend through the registry
 * and asks its folder's implementation (loaded on demand, so a process using one backend never loads
 * another's driver); none of them names a kind.
 */
import { StorageError } from '../errors.js';
import type { OpenOptions } from './key-value.js';
import type { OccurrenceClaims } from './occurrence-claims.js';
import { backendFor, backendOf, examplesText, type Backend } from './registry.js';
import type { UsageStoreOptions, UsageStores } from './usage-store.js';

/**
 * Open the key-value backend KEYV_URL names: SQLite, Redis, PostgreSQL, or `memory:` for tests and the
 * terminal runner. A relative SQLite path is taken from `baseDir`.
 */
export async function openBackend(url: string, baseDir: string, options: OpenOptions): Promise<Backend> {
  const declared = backendFor(url);
  if (!declared) throw new StorageError(`KEYV_URL "${url}" names no known storage. Use ${examplesText()}.`);
  const target = declared.target(url, baseDir, 'KEYV_URL');
  // The kind is the one the registry found for `url`, so its driver is that kind's declared shape.
  return (await declared.load()).openKeyValue(target, options) as Promise<Backend>;
}

/**
 * The usage limiter's stores (claims, counters, run window) on `backend`, built by its own folder on its
 * driver (SQLite: a connection of their own).
 */
export async function openUsageStores(backend: Backend, options: UsageStoreOptions): Promise<UsageStores> {
  return (await backendOf(backend.kind).load()).openUsage(backend, options);
}

/** The exactly-once claims of scheduled occurrences on `backend`, under `namespace` (SQLite: a connection of their own). */
export async function openOccurrenceClaims(backend: Backend, namespace: string): Promise<OccurrenceClaims> {
  return (await backendOf(backend.kind).load()).openOccurrenceClaims(backend, namespace);
}
