/**
 * The storage backends, and the one module that names their kinds. Each backend is a folder
 * (src/storage/<kind>/) whose declaration says which URL schemes name it and what it supports; its
 * implementation is loaded only when a store is opened on it. Everything that depends on the kind of
 * storage (config's checks, the scale checks, the identify lock, the openers in open.ts) asks here.
 * A new backend is a new folder plus its line in BACKENDS.
 */
import type { BackendDeclaration, BackendSupports } from './backend-declaration.js';
import type { KeyValueBackend } from './key-value.js';
import { schemeOf } from './storage-url.js';
import { memory } from './memory/declaration.js';
import { postgres } from './postgres/declaration.js';
import { redis } from './redis/declaration.js';
import { sqlite } from './sqlite/declaration.js';

/** Every backend, in the order messages list them (the default, SQLite, first). */
export const BACKENDS = [sqlite, redis, postgres, memory] as const;

type Declared = (typeof BACKENDS)[number];
type TargetOf<D> = D extends BackendDeclaration<infer T, infer _N> ? T : never;
type NativeOf<D> = D extends BackendDeclaration<infer _T, infer N> ? N : never;

/** Which storage a URL chose: one of the declared kinds. */
export type StorageKind = Declared['kind'];
/** Where a storage URL points, as its backend reads it (`{ kind: 'sqlite', file }`, `{ kind: 'redis', url }`, ...). */
export type StorageTarget = TargetOf<Declared>;
/** The driver under a key-value backend, as each folder declares it, for the families it builds on it. */
export type NativeClient = NativeOf<Declared>;
/** The key-value backend of any registered kind (what `openBackend` returns and src/state builds on). */
export type Backend = KeyValueBackend<NativeClient>;
/** Which storage a KEYV_URL chose. */
export type BackendKind = StorageKind;

/** The declaration of the backend `url`'s scheme names, or undefined when none does. */
export function backendFor(url: string): BackendDeclaration | undefined {
  const scheme = schemeOf(url);
  return BACKENDS.find((b) => scheme !== undefined && b.schemes.includes(scheme));
}

/** The declaration of `kind`. */
export function backendOf(kind: StorageKind): BackendDeclaration {
  return BACKENDS.find((b) => b.kind === kind)!;
}

/**
 * Where `url` points, or undefined when no backend has its scheme. A relative SQLite path is taken from
 * `baseDir`; `setting` names the variable in the error for a URL its backend cannot read.
 */
export function parseStorageUrl(url: string, baseDir: string, setting: string): StorageTarget | undefined {
  return backendFor(url)?.target(url, baseDir, setting) as StorageTarget | undefined;
}

/** What the backend `url` names supports, or undefined when no backend has its scheme. */
export function supportsOf(url: string): BackendSupports | undefined {
  return backendFor(url)?.supports;
}

/**
 * The folders on this machine the data at `url` lives in (a sandboxed MCP server must not see them):
 * none for a server or an unknown scheme. Throws StorageError when its backend cannot read the URL.
 */
export function storageFolders(url: string, baseDir: string, setting: string): string[] {
  const declared = backendFor(url);
  return declared ? declared.folders(declared.target(url, baseDir, setting)) : [];
}

/** Which backends a message lists: all, or those with an ability. */
export type Which = 'all' | 'shared' | 'knowledge' | 'identifyLock';

const chosen = (which: Which) =>
  BACKENDS.filter((b) => {
    if (which === 'all') return true;
    if (which === 'shared') return b.supports.sharing === true;
    return which === 'knowledge' ? b.supports.knowledge === true : b.supports.identifyLock;
  });

/** "a, b or c". */
function oneOf(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/**
 * How the chosen backends' URLs begin, for messages: "sqlite://, redis://, rediss://, postgres:// or
 * memory:"; with `firstOnly`, one spelling each ("redis://… or postgres://…" with `after` "…").
 */
export function schemesText(which: Which = 'all', options: { firstOnly?: boolean; after?: string } = {}): string {
  const spelled = chosen(which).flatMap((b) => (options.firstOnly ? b.spelled.slice(0, 1) : b.spelled));
  return oneOf(spelled.map((s) => `${s}${options.after ?? ''}`));
}

/** A URL of each chosen backend, for messages: "sqlite://data/threadwise.sqlite, redis://host:6379, ...". */
export function examplesText(which: Which = 'all'): string {
  return oneOf(chosen(which).map((b) => b.example));
}

/** Why the backends without the knowledge ability lack it ("Redis has no full-text search"). */
export function noKnowledgeText(): string {
  return BACKENDS.flatMap((b) => (b.supports.knowledge === true ? [] : [b.supports.knowledge.why])).join('; ');
}
