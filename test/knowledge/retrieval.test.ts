/**
 * Retrieval check: the corpus in test/knowledge/corpus (fifteen documents of a made-up community) and
 * its questions, each with the document that answers it. Recall@5 is the share of questions whose
 * document is among the five best passages' documents. It is printed, and must stay above a floor:
 * searching by words cannot bridge every synonym ("pay" vs "free", "colorblind" vs "colourblind"), so
 * the floor is below 1, but far above chance: the recall of five passages picked at random is computed
 * from the corpus's passage counts and printed beside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFromFile, openAIEmbedder, type KnowledgeBase } from '../../src/knowledge/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { knowledgeTargets, openOn, type OpenedKnowledge } from './helpers/targets.js';

const CORPUS = path.join(import.meta.dirname, 'corpus');
const QUESTIONS: Array<{ question: string; document: string }> = JSON.parse(fs.readFileSync(path.join(CORPUS, 'questions.json'), 'utf8'));
const DOCUMENTS = fs.readdirSync(CORPUS).filter((f) => !['README.md', 'questions.json'].includes(f));
const FLOOR = 0.8;

/** The expected recall@k of k passages drawn at random: 1 - C(N - n, k) / C(N, k), averaged over questions. */
async function chanceRecall(kb: KnowledgeBase, collection: string, k: number): Promise<number> {
  const passages = new Map((await kb.list(collection)).map((d) => [path.basename(d.source), d.passages]));
  const total = [...passages.values()].reduce((a, b) => a + b, 0);
  const missAll = (n: number) => Array.from({ length: k }, (_, i) => (total - n - i) / (total - i)).reduce((a, b) => a * b, 1);
  return QUESTIONS.reduce((sum, q) => sum + 1 - missAll(passages.get(q.document) ?? 0), 0) / QUESTIONS.length;
}

/** Recall@k and the questions missed. */
export async function recallAt(kb: KnowledgeBase, collection: string, k: number): Promise<{ recall: number; missed: string[] }> {
  const missed: string[] = [];
  for (const { question, document } of QUESTIONS) {
    const hits = await kb.search(collection, question, { limit: k });
    if (!hits.some((hit) => path.basename(hit.source) === document)) missed.push(question);
  }
  return { recall: (QUESTIONS.length - missed.length) / QUESTIONS.length, missed };
}

describe('the retrieval corpus', () => {
  it('has at least 20 questions, each answered by a document that exists', () => {
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(20);
    for (const q of QUESTIONS) expect(DOCUMENTS, q.question).toContain(q.document);
  });
});

for (const target of await knowledgeTargets('kb-retrieval')) {
  describe.runIf(target.available)(`retrieval on ${target.kind}`, () => {
    let opened: OpenedKnowledge;
    beforeAll(async () => {
      opened = await openOn(target, 'retrieval');
      for (const file of DOCUMENTS) await opened.kb.add('corpus', await documentFromFile(path.join(CORPUS, file), { maxFileBytes: 1_000_000 }));
    });
    afterAll(() => opened?.cleanup());

    it(`finds the answering document in the top 5 for at least ${FLOOR * 100}% of the questions`, async () => {
      const { recall, missed } = await recallAt(opened.kb, 'corpus', 5);
      const top1 = await recallAt(opened.kb, 'corpus', 1);
      const chance = await chanceRecall(opened.kb, 'corpus', 5);
      console.log(`[retrieval] ${target.kind}: recall@5 ${recall.toFixed(3)} (chance ${chance.toFixed(3)}), recall@1 ${top1.recall.toFixed(3)} over ${QUESTIONS.length} questions; missed at 5: ${missed.join(' | ') || 'none'}`);
      expect(recall).toBeGreaterThanOrEqual(FLOOR);
      expect(chance).toBeLessThan(FLOOR / 2);
      expect(top1.recall).toBeLessThanOrEqual(recall);
    });
  });
}

/**
 * The same questions with meaning search on, against the fake embedding server. Its small synonym
 * table is ours, not a real model's, so the figure only shows that fusion keeps what words found and
 * adds what meaning finds; it is printed, and must not fall below the words-only recall.
 */
describe('retrieval with meaning search (fake embeddings)', () => {
  let opened: OpenedKnowledge;
  let words: OpenedKnowledge;
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await FakeOpenAIServer.start();
    const [sqlite] = await knowledgeTargets('kb-retrieval-meaning');
    opened = await openOn(sqlite!, 'retrieval_meaning', { embedder: openAIEmbedder({ model: 'fake-embed', baseURL: server.baseURL, apiKey: 't', batchSize: 64, timeoutMs: 5_000, maxRetries: 0 }) });
    words = await openOn(sqlite!, 'retrieval_words');
    for (const file of DOCUMENTS) {
      const doc = await documentFromFile(path.join(CORPUS, file), { maxFileBytes: 1_000_000 });
      await opened.kb.add('corpus', doc);
      await words.kb.add('corpus', doc);
    }
  });
  afterAll(async () => {
    await opened?.cleanup();
    await words?.cleanup();
    await server?.close();
  });

  it('finds at least what words alone find, and the "pay" question\'s FAQ', async () => {
    const fused = await recallAt(opened.kb, 'corpus', 5);
    const alone = await recallAt(words.kb, 'corpus', 5);
    console.log(`[retrieval] sqlite with fake embeddings: recall@5 ${fused.recall.toFixed(3)} (words alone ${alone.recall.toFixed(3)}); missed at 5: ${fused.missed.join(' | ') || 'none'}`);
    expect(fused.recall).toBeGreaterThanOrEqual(alone.recall);
    expect(fused.missed).not.toContain('Do I have to pay for the game?');
  });
});
