/** Choosing and opening the knowledge base from a URL, and the configuration that names it. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import sqlite3 from 'sqlite3';
import { loadConfig } from '../../src/config.js';
import { ConfigError, StorageError } from '../../src/errors.js';
import { documentFromBytes, openConfiguredKnowledge, openKnowledgeBase } from '../../src/knowledge/index.js';
import { tempDir } from '../state/helpers/targets.js';
import { makeInflateBomb } from './helpers/make-files.js';

const open = (url: string, baseDir = process.cwd()) => openKnowledgeBase(url, { baseDir, logger: () => {}, timeouts: { connectMs: 1_000 } });

describe('openKnowledgeBase', () => {
  it('opens a relative SQLite path from baseDir, creating folders, tables and FTS5 index, beside Keyv\'s table', async () => {
    const dir = tempDir('kb-open');
    const kb = await open('sqlite://data/threadwise.sqlite', dir);
    expect(kb).toMatchObject({ kind: 'sqlite', where: path.join(dir, 'data', 'threadwise.sqlite') });
    await kb.add('default', { source: 'a.md', format: 'markdown', content: 'Hello world' });
    await kb.close();
    const tables = await new Promise<string[]>((resolve, reject) => {
      const db = new sqlite3.Database(path.join(dir, 'data', 'threadwise.sqlite'));
      db.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'kb_%' ORDER BY name", (error, rows) => {
        db.close();
        if (error) reject(error);
        else resolve(rows.map((r) => `${r.name}${/fts5/.test(r.sql) ? ' (fts5)' : ''}`));
      });
    });
    expect(tables).toEqual(expect.arrayContaining(['kb_documents', 'kb_fts (fts5)', 'kb_passages']));
    // Opening again keeps what was there.
    const again = await open(`sqlite://${path.join(dir, 'data', 'threadwise.sqlite')}`);
    expect((await again.list('default')).map((d) => d.source)).toEqual(['a.md']);
    await again.close();
  });

  it('maps memory: to a private in-memory SQLite database', async () => {
    const a = await open('memory:');
    const b = await open('memory:');
    await a.add('default', { source: 'a.md', format: 'markdown', content: 'Only in a' });
    expect(await b.hasDocuments('default')).toBe(false);
    expect(a.kind).toBe('sqlite');
    await Promise.all([a.close(), b.close()]);
  });

  it('throws a clear StorageError for Redis, unknown schemes, an unusable SQLite path and an unreachable PostgreSQL', async () => {
    await expect(open('redis://127.0.0.1:6379')).rejects.toThrow(/cannot live in Redis.*KNOWLEDGE_URL/);
    await expect(open('mongodb://x')).rejects.toThrow(/names no knowledge base storage/);
    await expect(open('sqlite://')).rejects.toThrow(/has no SQLite file path/);
    const dir = tempDir('kb-open-bad');
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    await expect(open(`sqlite://${path.join(dir, 'file', 'kb.sqlite')}`)).rejects.toBeInstanceOf(StorageError);
    const dead = open('postgres://postgres:secret@127.0.0.1:9/test');
    await expect(dead).rejects.toBeInstanceOf(StorageError);
    await expect(dead).rejects.toThrow(/postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:9\/test/);
    await expect(openKnowledgeBase('memory:', { baseDir: '.', limits: { maxFileBytes: 10, maxBytes: 5 } })).rejects.toThrow(/cannot be larger/);
  });
});

describe('knowledge configuration', () => {
  const load = (env: Record<string, string>) => loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', ...env });

  it('uses the KEYV_URL database unless KNOWLEDGE_URL says otherwise, with 1 MB and 50 MB caps', () => {
    expect(load({}).knowledge).toEqual({
      url: 'sqlite://data/threadwise.sqlite', maxFileBytes: 1_000_000, maxBytes: 50_000_000, maxUploadBytes: 10_000_000, maxPages: 1_000, parseTimeoutMs: 60_000,
      parseMemoryMb: 512, maxPdfInflatedBytes: 256_000_000, maxPdfPageBytes: 64_000_000, embedding: undefined,
    });
    expect(load({ KEYV_URL: 'postgres://u@h/db' }).knowledge.url).toBe('postgres://u@h/db');
    expect(load({ KEYV_URL: 'postgres://u@h/db', KNOWLEDGE_URL: 'sqlite://kb.sqlite' }).knowledge.url).toBe('sqlite://kb.sqlite');
    expect(load({ KNOWLEDGE_MAX_FILE_BYTES: '2000', KNOWLEDGE_MAX_BYTES: '9000' }).knowledge).toMatchObject({ maxFileBytes: 2_000, maxBytes: 9_000 });
  });

  it('turns the knowledge base off with Redis unless KNOWLEDGE_URL names one', () => {
    expect(load({ KEYV_URL: 'redis://127.0.0.1:6379' }).knowledge.url).toBeUndefined();
    expect(load({ KEYV_URL: 'redis://127.0.0.1:6379', KNOWLEDGE_URL: 'postgres://u@h/db' }).knowledge.url).toBe('postgres://u@h/db');
  });

  it('reports a Redis KNOWLEDGE_URL, bad sizes and a file cap above the collection cap', () => {
    try {
      load({ KNOWLEDGE_URL: 'redis://x', KNOWLEDGE_MAX_FILE_BYTES: 'lots', KNOWLEDGE_MAX_BYTES: '5000' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        expect.stringMatching(/^KNOWLEDGE_URL must start with sqlite:\/\/, postgres:\/\/ or memory:/),
        expect.stringMatching(/^KNOWLEDGE_MAX_FILE_BYTES must be a whole number/),
        'KNOWLEDGE_MAX_FILE_BYTES (1000000) cannot be larger than KNOWLEDGE_MAX_BYTES (5000).',
      ]);
    }
  });

  it('reads meaning search from EMBEDDING_MODEL, on the chat model\'s server and key unless told otherwise', () => {
    expect(load({ EMBEDDING_MODEL: 'text-embedding-3-small' }).knowledge.embedding).toEqual({
      model: 'text-embedding-3-small', baseURL: undefined, apiKey: 'k', dimensions: undefined, batchSize: 64, timeoutMs: 60_000, maxRetries: 2,
    });
    expect(load({ EMBEDDING_MODEL: 'nomic-embed-text', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', EMBEDDING_DIMENSIONS: '256', EMBEDDING_BATCH_SIZE: '16' }).knowledge.embedding)
      .toMatchObject({ model: 'nomic-embed-text', baseURL: 'http://127.0.0.1:11434/v1', dimensions: 256, batchSize: 16 });
    expect(load({ EMBEDDING_MODEL: 'e', EMBEDDING_BASE_URL: 'http://127.0.0.1:8080/v1', EMBEDDING_API_KEY: 'ek' }).knowledge.embedding).toMatchObject({ baseURL: 'http://127.0.0.1:8080/v1', apiKey: 'ek' });
    expect(load({ KNOWLEDGE_MAX_UPLOAD_BYTES: '20000000', KNOWLEDGE_MAX_PAGES: '50', KNOWLEDGE_PARSE_TIMEOUT_MS: '5000' }).knowledge).toMatchObject({ maxUploadBytes: 20_000_000, maxPages: 50, parseTimeoutMs: 5_000 });
    expect(load({ KNOWLEDGE_PARSE_MEMORY_MB: '1024', KNOWLEDGE_PDF_MAX_INFLATED_BYTES: '500000000', KNOWLEDGE_PDF_MAX_PAGE_BYTES: '100000000' }).knowledge)
      .toMatchObject({ parseMemoryMb: 1_024, maxPdfInflatedBytes: 500_000_000, maxPdfPageBytes: 100_000_000 });
    try {
      load({ EMBEDDING_MODEL: 'two words', EMBEDDING_BATCH_SIZE: '0', KNOWLEDGE_MAX_PAGES: 'many' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'KNOWLEDGE_MAX_PAGES must be a whole number from 1 to 100000 (got "many").',
        'EMBEDDING_BATCH_SIZE must be a whole number from 1 to 2048 (got "0").',
        'EMBEDDING_MODEL must be a model name such as text-embedding-3-small (got "two words").',
      ]);
    }
  });

  it('opens the knowledge base with its reader under the reader settings (the PDF inflate caps among them)', async () => {
    // A 1 MB page cap (the shipped one is 64 MB), so that a small file meets it.
    const kb = await openConfiguredKnowledge(load({ KNOWLEDGE_URL: 'memory:', KNOWLEDGE_PDF_MAX_PAGE_BYTES: '1000000' }).knowledge, { baseDir: '.', logger: () => {} });
    try {
      const bytes = await makeInflateBomb(2, { spaces: true });
      const pdf = documentFromBytes({ name: 'large.pdf', bytes, source: 'upload/large.pdf', maxFileBytes: 1_000_000, maxUploadBytes: 10_000_000 });
      await expect(kb.add('default', pdf)).rejects.toThrow(
        'large.pdf has a stream that inflates to more than 1 MB (a PDF bomb, or far more than a page needs); it was stopped there (KNOWLEDGE_PDF_MAX_PAGE_BYTES).');
      expect(await kb.hasDocuments('default')).toBe(false);
    } finally {
      await kb.close();
    }
  }, 30_000);

  it('does not ask the knowledge-base terminal for a model key', () => {
    expect(() => loadConfig({ needDiscord: false, needModel: false, dotenvDir: false }, {})).not.toThrow();
    expect(() => loadConfig({ needDiscord: false, dotenvDir: false }, {})).toThrow(/OPENAI_API_KEY/);
  });
});
