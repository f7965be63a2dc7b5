/**
 * SQLite: one file on this machine (`sqlite://relative/path` from the base folder, `sqlite:///absolute`),
 * the default. Every store family lives in it, beside Keyv's table; full-text search is FTS5. A file
 * belongs to one machine, so shards on several hosts cannot share it.
 */
import path from 'node:path';
import { StorageError } from '../../errors.js';
import type { BackendDeclaration } from '../backend-declaration.js';
import type { SqliteNative, SqliteTarget } from './types.js';

/** `sqlite://data/x.sqlite` is relative to `baseDir`; `sqlite:///var/lib/x.sqlite` is absolute. */
export function sqliteFile(url: string, baseDir: string, setting = 'KEYV_URL'): string {
  const file = url.replace(/^sqlite:(\/\/)?/i, '');
  if (!file) throw new StorageError(`${setting} "${url}" has no SQLite file path, e.g. sqlite://data/threadwise.sqlite.`);
  if (file === ':memory:') return file;
  return path.resolve(baseDir, file);
}

/** The SQLite backend's declaration, listed in the registry. */
export const sqlite: BackendDeclaration<SqliteTarget, SqliteNative> = {
  kind: 'sqlite',
  label: 'SQLite',
  schemes: ['sqlite'],
  spelled: ['sqlite://'],
  example: 'sqlite://data/threadwise.sqlite',
  supports: { sharing: { why: 'a SQLite file belongs to one machine' }, identifyLock: false, knowledge: true },
  target: (url, baseDir, setting) => ({ kind: 'sqlite', file: sqliteFile(url, baseDir, setting) }),
  folders: (target) => [path.dirname(target.file)],
  load: async () => (await import('./index.js')).sqliteBackend,
};
