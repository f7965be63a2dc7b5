/**
 * Open a store family on the backend a URL names. Each opener finds the backend through the registry
 * and asks its folder's implementation (loaded on demand, so a process using one backend never loads
 * another's driver); none of them names a kind.
 */
import { StorageError } from '../errors.js';
import type { BackendDeclaration, BackendModule } from './backend-declaration.js';
import type { IdentifyLock } from './identify-lock.js';
import type { OpenOptions } from './key-value.js';
import type { OccurrenceClaims } from './occurrence-claims.js';
import { backendFor, backendOf, examplesText, schemesText, type Backend } from './registry.js';
import type { IndexOpenOptions, SearchIndex, SearchIndexOptions } from './search-index.js';
import { redactUrl } from './storage-url.js';
import type { ThreadStore } from './thread-store.js';
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

/**
 * The knowledge index (with its vectors) KNOWLEDGE_URL names, where a backend that supports it lives
 * (`memory:`: a private in-memory SQLite database). Throws StorageError naming what to use instead.
 */
export async function openSearchIndex(url: string, baseDir: string, options: SearchIndexOptions): Promise<SearchIndex> {
  const declared = backendFor(url);
  if (!declared) throw new StorageError(`"${redactUrl(url)}" names no knowledge base storage. Use ${examplesText('knowledge')}.`);
  if (declared.supports.knowledge !== true) {
    throw new StorageError(`The knowledge base cannot live in ${declared.label} (${declared.supports.knowledge.why}): set KNOWLEDGE_URL to ${examplesText('knowledge')}.`);
  }
  const target = declared.target(url, baseDir, 'KNOWLEDGE_URL');
  return (await opener(declared, 'openSearchIndex'))(target, options);
}

/** The past-thread index in the knowledge index's database (KNOWLEDGE_URL). Throws StorageError when it cannot live there. */
export async function openThreadStore(url: string, baseDir: string, options: IndexOpenOptions): Promise<ThreadStore> {
  const declared = backendFor(url);
  if (declared?.supports.knowledge !== true) {
    throw new StorageError(`Past-thread search needs a full-text index: "${redactUrl(url)}" is not a ${schemesText('knowledge')} URL.`);
  }
  const target = declared.target(url, baseDir, 'KNOWLEDGE_URL');
  return (await opener(declared, 'openThreadStore'))(target, options);
}

/**
 * The identify lock (a bucket's turn to log in) on the store at `url`, for bot `name` (its user id, which
 * tells bots apart that share a server). Only a backend every host shares has one (`identifyLock`).
 */
export async function openIdentifyLock(url: string, name: string): Promise<IdentifyLock> {
  const declared = backendFor(url);
  if (declared?.supports.identifyLock !== true) {
    throw new StorageError(`The shards' identify lock needs storage every host shares: "${redactUrl(url)}" is not a ${schemesText('identifyLock')} URL.`);
  }
  return (await opener(declared, 'openIdentifyLock'))(declared.target(url, process.cwd(), 'KEYV_URL'), name);
}

/** A backend's optional opener, which its declaration promised (supporting `knowledge` or `identifyLock`). */
async function opener<K extends 'openSearchIndex' | 'openThreadStore' | 'openIdentifyLock'>(declared: BackendDeclaration, name: K): Promise<NonNullable<BackendModule[K]>> {
  const module = await declared.load();
  const open = module[name];
  if (!open) throw new StorageError(`The ${declared.label} backend's declaration promises ${name}, but its folder has none: the two disagree.`);
  return open.bind(module) as NonNullable<BackendModule[K]>;
}
