/** The one reading of KEYV_URL and KNOWLEDGE_URL. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors.js';
import { redactUrl } from '../../src/storage/storage-url.js';
import { parseStorageUrl } from '../../src/storage/registry.js';

describe('parseStorageUrl', () => {
  it('reads every scheme, in any case, and nothing else', () => {
    expect(parseStorageUrl('memory:', '/base', 'KEYV_URL')).toEqual({ kind: 'memory' });
    expect(parseStorageUrl('sqlite://data/x.sqlite', '/base', 'KEYV_URL')).toEqual({ kind: 'sqlite', file: path.resolve('/base', 'data/x.sqlite') });
    expect(parseStorageUrl('SQLite:///var/lib/x.sqlite', '/base', 'KEYV_URL')).toEqual({ kind: 'sqlite', file: '/var/lib/x.sqlite' });
    expect(parseStorageUrl('sqlite://:memory:', '/base', 'KEYV_URL')).toEqual({ kind: 'sqlite', file: ':memory:' });
    expect(parseStorageUrl('rediss://h:6380', '/base', 'KEYV_URL')).toEqual({ kind: 'redis', url: 'rediss://h:6380' });
    expect(parseStorageUrl('postgresql://u@h/db', '/base', 'KEYV_URL')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db' });
    expect(parseStorageUrl('mysql://h/db', '/base', 'KEYV_URL')).toBeUndefined();
    expect(parseStorageUrl('data/x.sqlite', '/base', 'KEYV_URL')).toBeUndefined();
  });

  it('names the setting when a SQLite URL has no path', () => {
    expect(() => parseStorageUrl('sqlite://', '/base', 'KNOWLEDGE_URL')).toThrow(StorageError);
    expect(() => parseStorageUrl('sqlite://', '/base', 'KNOWLEDGE_URL')).toThrow(/^KNOWLEDGE_URL "sqlite:\/\/" has no SQLite file path/);
  });
});

describe('redactUrl', () => {
  it('hides the password, also in a URL the parser rejects', () => {
    expect(redactUrl('postgres://me:secret@h/db')).toBe('postgres://me:***@h/db');
    expect(redactUrl('not a url me:secret@h')).toBe('not a url me:***@h');
  });
});
