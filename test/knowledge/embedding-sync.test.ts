/**
 * The background embedding job, over a real SQLite knowledge base and the fake embedding server: after
 * the model changes it embeds every passage without being asked, and a server that fails is tried
 * again later rather than given up on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAIEmbedder, openKnowledgeBase, startEmbeddingSync, type KnowledgeBase } from '../../src/knowledge/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { tempSqliteUrl } from '../state/helpers/targets.js';

describe('the background embedding job', () => {
  let server: FakeOpenAIServer;
  const opened: KnowledgeBase[] = [];
  const url = tempSqliteUrl('kb-sync').url;
  const open = async (model: string) => {
    const kb = await openKnowledgeBase(url, { baseDir: process.cwd(), logger: () => {}, embedder: openAIEmbedder({ model, baseURL: server.baseURL, apiKey: 't', batchSize: 2, timeoutMs: 5_000, maxRetries: 0 }) });
    opened.push(kb);
    return kb;
  };
  beforeAll(async () => (server = await FakeOpenAIServer.start()));
  afterAll(async () => {
    for (const kb of opened) await kb.close();
    await server.close();
  });

  it('re-embeds every passage after the model changed, retrying after a failure, and logs what it did', async () => {
    const first = await open('model-a');
    for (let i = 0; i < 5; i++) await first.add('c', { source: `/d${i}.md`, format: 'markdown', content: `# Doc ${i}\n\nThe ferry crossing number ${i} has its own tolls.` });
    const second = await open('model-b');
    expect(await second.meaning!.status()).toMatchObject({ passages: 5, embedded: 0 });
    const logs: string[] = [];
    server.embeddingsDown = true;
    const sync = startEmbeddingSync(second.meaning!, { idleMs: 60_000, backoffMs: 50, log: (level, message) => logs.push(`${level}: ${message}`) });
    await sync.idle();
    expect(logs[0]).toMatch(/^warn: meaning search: embedding with model-b failed \(.*503.*\); those passages are found by words until it works, trying again in 0 s$/);
    server.embeddingsDown = false;
    await expect.poll(async () => (await second.meaning!.status()).embedded, { timeout: 5_000 }).toBe(5);
    await expect.poll(() => logs.at(-1)).toMatch(/^info: meaning search: embedded 5 passages with model-b \(\d+ tokens\)$/);
    await sync.stop();
    expect(server.embeddingRequests.filter((r) => r.model === 'model-b').every((r) => r.input.length <= 2)).toBe(true);
  });
});
