/**
 * The answer as it is written, end to end: the real discord.js client against the fake Discord, the
 * real openai SDK against the fake model server streaming at a set pace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WRITING_MARK } from '../../src/discord/posting/answer-stream.js';
import type { FakeMessage } from '../fake-discord/index.js';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Every version a message has shown, oldest first. */
function versions(m: FakeMessage): string[] {
  return [...m.edits.map((e) => e.content), m.content];
}

/** The answer text a streaming version shows: without the heading and the "still writing" mark. */
function streamedText(content: string): string {
  return content.replace(/^### Answer\n/, '').replace(WRITING_MARK, '');
}

/** Gaps in ms between a message's successive edits (its creation left out). */
function editGaps(h: Harness, id: string): number[] {
  const times = h.fake.editTimestamps(id).slice(1);
  return times.slice(1).map((t, i) => t - times[i]!);
}

async function ask(harness: Harness, question: string): Promise<FakeMessage> {
  const mark = harness.fake.mark();
  harness.fake.sendSlashCommand({ name: 'ask', options: { question } });
  return harness.fake.waitForMessage(isFinalAnswer, 20_000, { since: mark });
}

describe('a streamed answer in Discord', () => {
  it('is edited several times with growing text, never more than about once a second, and ends as the model\'s answer', async () => {
    h = await startHarness();
    const answer = Array.from({ length: 24 }, (_, i) => `Sentence ${i + 1} of the answer.`).join(' ');
    // About 4.5 seconds of writing: 10 characters every 60 ms.
    h.model.script({ content: answer, stream: { chunks: pieces(answer, 10), paceMs: 60 } });
    const final = await ask(h, 'Tell me slowly');

    const shown = versions(final);
    const streaming = shown.filter((c) => c.includes(WRITING_MARK));
    expect(streaming.length).toBeGreaterThanOrEqual(3);
    const texts = streaming.map(streamedText);
    for (const [i, text] of texts.entries()) {
      expect(answer.startsWith(text)).toBe(true);
      if (i > 0) expect(text.length).toBeGreaterThan(texts[i - 1]!.length);
    }
    expect(final.content.startsWith(`### Answer\n${answer}\n\n-# 1 step`)).toBe(true);
    expect(final.content).not.toContain(WRITING_MARK.trim());

    // The last edit (the final answer) goes at once; every edit while writing waits its second.
    const gaps = editGaps(h, final.id).slice(0, -1);
    expect(gaps.length).toBeGreaterThanOrEqual(2);
    for (const gap of gaps) expect(gap).toBeGreaterThan(950);
    // One answer message: nothing was posted twice.
    expect(h.fake.messagesIn(final.channelId).filter((m) => m.content.startsWith('### Answer'))).toHaveLength(1);
  }, 30_000);

  it('rolls a 9,000-character answer over into messages of at most 2,000 characters as it streams, losing nothing', async () => {
    h = await startHarness();
    const answer = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(3, '0')}`).join('\n');
    h.model.script({ content: answer, stream: { chunks: pieces(answer, 60), paceMs: 15 } });
    const first = await ask(h, 'Write a lot, slowly');
    await h.fake.waitFor(() => h!.fake.messagesIn(first.channelId).some((m) => m.content.includes('-# 1 step')), 10_000);

    const bot = h.fake.messagesIn(first.channelId).filter((m) => m.authorId === h!.fake.botId);
    const parts = bot.slice(bot.findIndex((m) => m.content.startsWith('### Answer')));
    expect(parts.length).toBeGreaterThanOrEqual(5);
    for (const part of parts) for (const version of versions(part)) expect(version.length).toBeLessThanOrEqual(2000);
    // It rolled over while still writing: a later part was first shown with the mark.
    expect(parts.slice(1).some((p) => versions(p)[0]!.includes(WRITING_MARK))).toBe(true);
    const lines = parts.map((p) => p.content).join('\n').split('\n').filter((l) => /^line \d{3}$/.test(l));
    expect(lines).toEqual(answer.split('\n'));
    for (const part of parts) for (const gap of editGaps(h, part.id).slice(0, -1)) expect(gap).toBeGreaterThan(950);
    expect(h.fake.rateLimitHits).toEqual([]);
  }, 30_000);

  it('with the production defaults, a streamed 9,000-character answer keeps every message it was written into', async () => {
    h = await startHarness({ production: true });
    // Prose in paragraphs, as models write: the splitter cuts at paragraph breaks, so it takes more than five messages.
    const paragraphs = Array.from({ length: 8 }, (_, i) => `Paragraph ${i + 1}: ${'some words here '.repeat(70).trim()}.`);
    const answer = paragraphs.join('\n\n');
    expect(answer.length).toBeGreaterThan(9_000);
    h.model.script({ content: answer, stream: { chunks: pieces(answer, 300), paceMs: 40 } });
    const first = await ask(h, 'Write a lot');
    await h.fake.waitFor(() => h!.fake.messagesIn(first.channelId).some((m) => m.content.includes('-# 1 step')), 20_000);
    const all = h.fake.messagesIn(first.channelId, { includeDeleted: true }).filter((m) => m.authorId === h!.fake.botId);
    // Nothing the members were reading was taken away.
    expect(all.filter((m) => m.deleted)).toEqual([]);
    const parts = all.slice(all.findIndex((m) => m.content.startsWith('### Answer')));
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.content.length).toBeLessThanOrEqual(2000);
    const shown = parts.map((p) => p.content).join('\n\n');
    let at = 0;
    for (const paragraph of paragraphs) {
      at = shown.indexOf(paragraph, at);
      expect(at).toBeGreaterThanOrEqual(0);
    }
  }, 30_000);

  it('a streamed 20,000-character answer keeps its messages and, where files are allowed, is also attached whole', async () => {
    h = await startHarness({ production: true });
    const answer = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n');
    h.model.script({ content: answer, stream: { chunks: pieces(answer, 500), paceMs: 60 } });
    const first = await ask(h, 'Write even more');
    await h.fake.waitFor(() => h!.fake.messagesIn(first.channelId).some((m) => m.content.includes('-# 1 step')), 30_000);
    const all = h.fake.messagesIn(first.channelId, { includeDeleted: true }).filter((m) => m.authorId === h!.fake.botId);
    expect(all.filter((m) => m.deleted)).toEqual([]);
    const parts = all.slice(all.findIndex((m) => m.content.startsWith('### Answer')));
    expect(parts.length).toBeGreaterThan(5);
    const lines = parts.map((p) => p.content).join('\n').split('\n').filter((l) => /^line \d{4}$/.test(l));
    expect(lines).toEqual(answer.split('\n'));
    await h.fake.waitFor(() => parts.at(-1)!.attachments.length === 1, 10_000);
    expect(parts.at(-1)!.attachments[0]!.filename).toBe('answer.md');
    expect(parts.slice(0, -1).every((p) => p.attachments.length === 0)).toBe(true);
  }, 60_000);

  it('streams the model\'s thoughts into the step log at the full display level', async () => {
    h = await startHarness();
    const thought = 'I should compute this rather than guess, so I will call the calculator with the expression as given.';
    h.model.script(
      { reasoning: thought, toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }], stream: { reasoningChunks: pieces(thought, 8), paceMs: 80 } },
      { content: 'It is 42.' },
    );
    const final = await ask(h, 'What is 6 times 7?');
    const log = h.fake.messagesIn(final.channelId).find((m) => m.authorId === h!.fake.botId && m.content.includes('💭'))!;
    const live = versions(log).filter((c) => c.includes('✍️'));
    expect(live.length).toBeGreaterThanOrEqual(2);
    // Partial thoughts, growing, each a start of the whole one.
    const shownThoughts = live.map((c) => /💭 (.*) ✍️/s.exec(c)?.[1] ?? '');
    for (const t of shownThoughts) expect(thought.startsWith(t)).toBe(true);
    expect(shownThoughts.at(-1)!.length).toBeGreaterThan(shownThoughts[0]!.length);
    expect(log.content).toContain(thought);
    expect(log.content).not.toContain('✍️');
    expect(log.content).toContain('calculate');
  }, 30_000);

  it('shows typing while the model is silent before its first token, and not when it answers at once', async () => {
    h = await startHarness();
    h.model.script({ content: 'Quick.' }, { content: 'Slow, but here.', stream: { firstEventDelayMs: 2_500 } });
    const quick = await ask(h, 'Quick?');
    expect(h.fake.typingIn(quick.channelId)).toEqual([]);

    const slow = await ask(h, 'Slow?');
    const typing = h.fake.typingIn(slow.channelId);
    expect(typing.length).toBeGreaterThanOrEqual(1);
    expect(typing[0]!).toBeLessThan(slow.createdAtMs);
  }, 30_000);
});
