/**
 * PDF and Word documents and meaning search, end to end: the real bot against the fake Discord and the
 * fake model server (which also serves /v1/embeddings). A rulebook PDF uploaded with `/kb add` is
 * cited by its page in the answer's Sources line; a long PDF's reply shows its progress as it goes;
 * with EMBEDDING_MODEL set, the embeddings are counted in the server's usage, and an embedding server
 * that is down costs only meaning, which the reply says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makePdf } from '../knowledge/helpers/make-files.js';
import { startModeration, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer } from './harness.js';
import { addFile, storedDocuments } from './kb-helpers.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

const RULEBOOK = [
  'Quest Rulebook\nChapter one: setting up the board.',
  'Chapter two: combat.\nA dragon is slain by rolling three dice for a total above twelve.',
  'Chapter three: scoring.\nEach gem is worth two points.',
];

describe('documents people have, in Discord', () => {
  it('a three-page PDF added with /kb add is cited with "p. 2" in the Sources line of the answer', async () => {
    w = await startModeration();
    const { fake, model } = w;
    const added = await addFile(w, 'rulebook.pdf', Buffer.from(await makePdf(RULEBOOK, 'Quest Rulebook')), w.modId, 'application/pdf');
    expect(added.content).toMatch(/^✅ Added \*\*Quest Rulebook\*\* \(#1\): 3 passages, \d+ bytes, from `upload\/rulebook\.pdf`\./);
    expect(await storedDocuments(w)).toMatchObject([{ format: 'pdf', passages: 3 }]);

    const first = model.requests.length;
    model.script(
      { content: 'Looking in the rulebook.', toolCalls: [{ name: 'search_knowledge', arguments: { query: 'slay dragon dice' } }] },
      { content: 'Roll three dice: a total above twelve slays the dragon [1].' },
    );
    const since = fake.mark();
    fake.sendSlashCommand({ name: 'ask', options: { question: 'How do I slay the dragon?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000, { since });
    const observation = model.requests[first + 1]!.body.messages.find((m) => m.role === 'tool')!;
    expect(observation.content).toContain('[1] Quest Rulebook, p. 2');
    expect(answer.content).toContain('**Sources:** [1] Quest Rulebook, p. 2');
  });

  it('a long PDF shows its progress in the /kb add reply as it goes, then the result', async () => {
    w = await startModeration({ knowledge: { progressEveryMs: 1 } });
    const pages = Array.from({ length: 120 }, (_, i) => `Page ${i + 1} of the almanac.\nThe tide on day ${i + 1} turns at dawn.`);
    const data = Buffer.from(await makePdf(pages, 'Almanac'));
    const interaction = w.fake.sendSlashCommand({ name: 'kb', subcommand: 'add', options: { file: { filename: 'almanac.pdf', data, contentType: 'application/pdf' } }, userId: w.modId });
    const added = await w.fake.waitForMessage((m) => m.interactionId === interaction.id && m.content.startsWith('✅'), 20_000);
    const versions = [...added.edits.map((e) => e.content), added.content];
    const progress = versions.filter((c) => c.startsWith('⏳ Adding **almanac.pdf**: '));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((c) => /pages read \(\d+%\)(, about [\d a-z]+ left)?\.$/.test(c))).toBe(true);
    expect(added.content).toMatch(/^✅ Added \*\*Almanac\*\* \(#1\): 120 passages/);
  });

  it('with EMBEDDING_MODEL, the embeddings are counted in the server\'s usage; with the embedding server down the document is added for words and the reply says so', async () => {
    w = await startModeration({ env: { EMBEDDING_MODEL: 'fake-embed', OPENAI_MAX_RETRIES: '0' }, knowledge: { embeddingIdleMs: 60_000 } });
    const { model, guildId } = w;
    const faq = '# FAQ\n\n## Price\n\nThe game is free: there is no subscription.';
    const added = await addFile(w, 'faq.md', faq);
    expect(added.content).toMatch(/\n-# Found by meaning too: 1 passage embedded with `fake-embed` \(\d+ tokens, counted in this server's usage\)\.$/);
    const tokens = Number(/\((\d+) tokens/.exec(added.content)![1]);
    expect((await w.h.app.services.usage.limiter.guildUsage(guildId, 0)).today.totalTokens).toBe(tokens);

    model.embeddingsDown = true;
    const down = await addFile(w, 'rules.md', '# Rules\n\nNo spoilers for the ending in the general channel.');
    expect(down.content).toMatch(/^✅ Added \*\*Rules\*\* \(#2\)/);
    expect(down.content).toContain("⚠️ Meaning search could not embed it (the embedding server did not embed (503 fake server: embeddings are down)), so for now it is found by its words only; it is embedded in the background once the embedding server answers.");
    expect((await w.h.app.knowledge!.services.base.search(guildId, 'spoilers ending'))[0]!.source).toBe('upload/rules.md');
  });
});
