/**
 * Open the backend KEYV_URL names (read by src/storage/storage-url.ts): SQLite, Redis, PostgreSQL, or
 * `memory:` for tests and the terminal runner.
 */
import { StorageError } from '../../errors.js';
import { parseStorageUrl } from '../../storage/storage-url.js';
import type { Backend, OpenOptions } from './backend.js';
import { openMemoryBackend } from './memory-backend.js';

/**
 * Open the backend `url` names; a relative SQLite path is taken from `baseDir`. Backend modules are
 * imported on demand, so a process using one backend never loads the drivers of the others.
 */
export async function openBackend(url: string, baseDir: string, options: OpenOptions): Promise<Backend> {
  const target = parseStorageUrl(url, baseDir, 'KEYV_URL');
  switch (target?.kind) {
    case 'memory':
      return openMemoryBackend();
    case 'sqlite':
      return (await import('./sqlite-backend.js')).openSqliteBackend(target.file, options);
    case 'redis':
      return (await import('./redis-backend.js')).openRedisBackend(target.url, options);
    case 'postgres':
      return (await import('./postgres-backend.js')).openPostgresBackend(target.url, options);
    default:
      throw new StorageError(
        `KEYV_URL "${url}" names no known storage. Use sqlite://data/threadwise.sqlite, redis://host:6379, postgres://user@host/db or memory:.`,
      );
  }
}
