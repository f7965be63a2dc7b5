import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StorageError } from '../../src/errors.js';
import { createStorage, toModelMessages, type StoredMessage } from '../../src/state/index.js';
import { fakeClock } from './helpers/stores.js';
import { serverTarget, tempDir } from './helpers/targets.js';

const DAY = 86_400_000;

describe('createStorage', () => {
  it('opens the default SQLite file under the project, creating the data folder', async () => {
    const project = tempDir('project');
    const { storage: config } = loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k' });
    const storage = await createStorage(config, { baseDir: project });
    expect(storage.kind).toBe('sqlite');
    expect(storage.where).toBe(path.join(project, 'data', 'threadwise.sqlite'));
    await storage.conversations.append('1', [{ role: 'user', content: 'hi' }]);
    await storage.close();
    expect(fs.existsSync(path.join(project, 'data', 'threadwise.sqlite'))).toBe(true);
  });

  it('opens an in-memory store for memory:', async () => {
    const storage = await createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000 });
    expect(storage.kind).toBe('memory');
    await storage.conversations.append('1', [{ role: 'user', content: 'hi' }]);
    expect((await storage.conversations.load('1')).messages).toHaveLength(1);
    await storage.close();
  });

  it('forgets conversations idle longer than CONVERSATION_TTL_DAYS', async () => {
    const clock = fakeClock();
    const storage = await createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000, conversationTtlDays: 2 }, { now: clock.now, logger: () => {} });
    await storage.conversations.append('1', [{ role: 'user', content: 'hi' }]);
    clock.advance(DAY + 1);
    expect((await storage.conversations.load('1')).messages).toHaveLength(1);
    clock.advance(DAY);
    expect((await storage.conversations.load('1')).messages).toHaveLength(0);
  });

  it('refuses a namespace that would break the key layout', async () => {
    await expect(createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000 }, { namespace: 'a:b' })).rejects.toBeInstanceOf(StorageError);
  });

  it('names the problem when the SQLite path cannot be created', async () => {
    const file = tempDir('blocked');
    fs.writeFileSync(path.join(file, 'data'), 'a file where the folder should be');
    const attempt = createStorage({ keyvUrl: 'sqlite://data/x.sqlite', historyTokenBudget: 8_000 }, { baseDir: file });
    await expect(attempt).rejects.toBeInstanceOf(StorageError);
    await expect(attempt).rejects.toThrow(/creating the data folder failed on sqlite .*data\/x\.sqlite/);
  });
});

describe('messages for the model', () => {
  it('drops storage metadata and labels each speaker once, in brackets', () => {
    const stored: StoredMessage[] = [
      { role: 'system', content: 'rules', at: 1 },
      { role: 'user', content: 'hi', at: 2, author: { id: '42', name: 'Ann Lee' } },
      { role: 'user', content: 'yo', at: 3, author: { id: '43', name: '田中' } },
      { role: 'assistant', content: null, at: 4, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'r', at: 5 },
      { role: 'assistant', content: 'done', at: 6 },
    ];
    expect(toModelMessages(stored)).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'user', content: '[Ann Lee] hi' },
      { role: 'user', content: '[田中] yo' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'r' },
      { role: 'assistant', content: 'done' },
    ]);
  });
});

describe('test targets', () => {
  const closed = 'redis://127.0.0.1:1';
  const ci = process.env.CI;
  afterEach(() => {
    if (ci === undefined) delete process.env.CI;
    else process.env.CI = ci;
  });

  it('skip an unreachable server with the reason printed outside CI', async () => {
    delete process.env.CI;
    const target = await serverTarget('probe', 'redis', closed);
    expect(target).toMatchObject({ kind: 'redis', available: false, reason: expect.stringMatching(/ECONNREFUSED|reach/) });
  });

  it('fail the run when CI=true and a server is unreachable, instead of skipping', async () => {
    process.env.CI = 'true';
    await expect(serverTarget('probe', 'redis', closed)).rejects.toThrow(/redis at redis:\/\/127\.0\.0\.1:1 is not reachable, and CI=true requires it/);
  });
});
