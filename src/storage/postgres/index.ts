/** The PostgreSQL backend's store families (see declaration.ts). */
import type { BackendModule } from '../backend-declaration.js';
import { postgresClaims } from './claims.js';
import type { PostgresNative, PostgresTarget } from './types.js';
import { redactUrl } from '../storage-url.js';
import { openPostgresIdentifyLock } from './identify-lock.js';
import { openPostgresBackend } from './key-value.js';
import { openPostgresIndex } from './search-index.js';
import { openPostgresThreads } from './threads.js';
import { openPostgresUsage } from './usage.js';

/** What PostgreSQL opens, loaded by its declaration on demand. */
export const postgresBackend: BackendModule<PostgresTarget, PostgresNative> = {
  openKeyValue: (target, options) => openPostgresBackend(target.url, options),
  openUsage: openPostgresUsage,
  openOccurrenceClaims: (backend, namespace) => postgresClaims(backend.native.pool, namespace, backend.where),
  openSearchIndex: (target, options) => openPostgresIndex(target.url, redactUrl(target.url), options),
  openThreadStore: (target, options) => openPostgresThreads(target.url, redactUrl(target.url), options),
  openIdentifyLock: (target, name) => openPostgresIdentifyLock(target.url, name),
};
