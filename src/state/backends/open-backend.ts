/**
 * Choose and open a backend from KEYV_URL: `sqlite://relative/or/absolute/path`, `redis://` or
 * `rediss://`, `postgres://` or `postgresql://`, and `memory:` for tests and the terminal runner.
 */
import path from 'node:path';
import { StorageError } from '../../errors.js';
import type { Backend, OpenOptions } from './backend.js';
import { openMemoryBackend } from './memory-backend.js';

/**
 * Open the backend `url` names; a relative SQLite path is taken from `baseDir`. Backend modules are
 * imported on demand, so a process using one backend never loads the drivers of the others.
 */
export async function openBackend(url: string, baseDir: string, options: OpenOptions): Promise<Backend> {
  const scheme = /^([a-z]+):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'memory':
      return openMemoryBackend();
    case 'sqlite':
      return (await import('./sqlite-backend.js')).openSqliteBackend(sqliteFile(url, baseDir), options);
    case 'redis':
    case 'rediss':
      return (await import('./redis-backend.js')).openRedisBackend(url, options);
    case 'postgres':
    case 'postgresql':
      return (await import('./postgres-backend.js')).openPostgresBackend(url, options);
    default:
      throw new StorageError(
        `KEYV_URL "${url}" names no known storage. Use sqlite://data/threadwise.sqlite, redis://host:6379, postgres://user@host/db or memory:.`,
      );
  }
}

/** `sqlite://data/x.sqlite` is relative to `baseDir`; `sqlite:///var/lib/x.sqlite` is absolute. */
export function sqliteFile(url: string, baseDir: string, setting = 'KEYV_URL'): string {
  const file = url.replace(/^sqlite:(\/\/)?/i, '');
  if (!file) throw new StorageError(`${setting} "${url}" has no SQLite file path, e.g. sqlite://data/threadwise.sqlite.`);
  if (file === ':memory:') return file;
  return path.resolve(baseDir, file);
}
