/** The SQLite backend's store families, each on the one file (see declaration.ts). */
import type { BackendModule } from '../backend-declaration.js';
import { sqliteClaims } from './claims.js';
import type { SqliteNative, SqliteTarget } from './types.js';
import { openSqliteBackend } from './key-value.js';
import { openSqliteIndex } from './search-index.js';
import { openSqliteThreads } from './threads.js';
import { openSqliteUsage } from './usage.js';

/** What SQLite opens, loaded by its declaration on demand. */
export const sqliteBackend: BackendModule<SqliteTarget, SqliteNative> = {
  openKeyValue: (target, options) => openSqliteBackend(target.file, options),
  openUsage: openSqliteUsage,
  openOccurrenceClaims: (backend, namespace) => sqliteClaims(backend.native.file, backend.native.busyMs, namespace, backend.where),
  openSearchIndex: (target, options) => openSqliteIndex(target.file, options),
  openThreadStore: (target, options) => openSqliteThreads(target.file, options),
};
