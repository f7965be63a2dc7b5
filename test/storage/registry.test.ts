/** The registry of storage backends: each folder's declaration, and what it says its folder can open. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKENDS, backendFor, examplesText, schemesText, storageFolders, supportsOf } from '../../src/storage/registry.js';

describe('the storage registry', () => {
  it('every backend opens exactly the families its declaration says it supports', async () => {
    for (const declared of BACKENDS) {
      const module = await declared.load();
      const knowledge = declared.supports.knowledge === true;
      expect({ kind: declared.kind, index: !!module.openSearchIndex, threads: !!module.openThreadStore, lock: !!module.openIdentifyLock })
        .toEqual({ kind: declared.kind, index: knowledge, threads: knowledge, lock: declared.supports.identifyLock });
      // A backend that shares its data across hosts is what SHARDS needs, and the identify lock with it.
      if (declared.supports.identifyLock) expect(declared.supports.sharing).toBe(true);
    }
  });

  it('finds a URL\'s backend by its scheme, in any case, and no backend for another scheme', () => {
    expect(backendFor('REDISS://h:6380')?.kind).toBe('redis');
    expect(backendFor('postgresql://u@h/db')?.kind).toBe('postgres');
    expect(backendFor('mysql://h/db')).toBeUndefined();
    expect(supportsOf('redis://h')?.knowledge).toEqual({ why: 'Redis has no full-text search' });
  });

  it('says where a URL\'s data lives on this machine, and lists the backends for messages', () => {
    expect(storageFolders('sqlite://data/x.sqlite', '/base', 'KEYV_URL')).toEqual([path.resolve('/base', 'data')]);
    expect(storageFolders('postgres://u@h/db', '/base', 'KEYV_URL')).toEqual([]);
    expect(schemesText()).toBe('sqlite://, redis://, rediss://, postgres:// or memory:');
    expect(schemesText('shared', { firstOnly: true, after: '…' })).toBe('redis://… or postgres://…');
    expect(examplesText('knowledge')).toBe('sqlite://data/threadwise.sqlite, postgres://user@host/db or memory:');
  });
});
