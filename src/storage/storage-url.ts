/**
 * The one reading of a storage URL, shared by thread memory and usage (KEYV_URL) and the knowledge
 * base (KNOWLEDGE_URL): `sqlite://relative/or/absolute/path`, `redis://` or `rediss://`, `postgres://`
 * or `postgresql://`, and `memory:`. Each opener decides what it does with a kind (the knowledge base
 * refuses Redis; `memory:` is a Keyv map for one and a private SQLite database for the other).
 */
import path from 'node:path';
import { StorageError } from '../errors.js';

/** Where a storage URL points. */
export type StorageTarget =
  | { kind: 'memory' }
  | { kind: 'sqlite'; file: string }
  | { kind: 'redis'; url: string }
  | { kind: 'postgres'; url: string };

/**
 * The target `url` names, or undefined when its scheme is none of the above. A relative SQLite path is
 * taken from `baseDir`; `setting` names the variable in the error for a SQLite URL without a path.
 */
export function parseStorageUrl(url: string, baseDir: string, setting: string): StorageTarget | undefined {
  const scheme = /^([a-z]+):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'memory':
      return { kind: 'memory' };
    case 'sqlite':
      return { kind: 'sqlite', file: sqliteFile(url, baseDir, setting) };
    case 'redis':
    case 'rediss':
      return { kind: 'redis', url };
    case 'postgres':
    case 'postgresql':
      return { kind: 'postgres', url };
    default:
      return undefined;
  }
}

/** `sqlite://data/x.sqlite` is relative to `baseDir`; `sqlite:///var/lib/x.sqlite` is absolute. */
export function sqliteFile(url: string, baseDir: string, setting = 'KEYV_URL'): string {
  const file = url.replace(/^sqlite:(\/\/)?/i, '');
  if (!file) throw new StorageError(`${setting} "${url}" has no SQLite file path, e.g. sqlite://data/threadwise.sqlite.`);
  if (file === ':memory:') return file;
  return path.resolve(baseDir, file);
}

/** A URL with its password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
