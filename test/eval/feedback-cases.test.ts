/**
 * Rated answers as suite cases (what `/feedback export` writes): the check each one gets from its votes,
 * the key words of a liked answer, what is left out, and that whatever comes out is a suite the reader
 * takes. The end-to-end test (test/discord/feedback.test.ts) runs an export through the real CLI.
 */
import { describe, expect, it } from 'vitest';
import { feedbackCase, feedbackSuite } from '../../src/eval/feedback-cases.js';
import { keyWords } from '../../src/eval/key-words.js';
import { parseSuite } from '../../src/eval/suite.js';
import type { FeedbackRecord } from '../../src/state/index.js';

function rated(votes: FeedbackRecord['votes'], over: Partial<FeedbackRecord> = {}): FeedbackRecord {
  return {
    v: 1, id: 'ab12cd34', guildId: '100', channelId: '200', threadId: '300', messageId: '400', at: Date.parse('2025-03-10T12:00:00Z'), askedAt: 0,
    question: 'How far is it from Oslo to Bergen by road?', questionIds: [], answer: 'About **463 km** by the E16 [1], roughly 7 hours: see https://vegvesen.no.',
    model: 'gpt-4o-mini', offered: ['calculate', 'remember', 'search_knowledge', 'wikipedia'], tools: ['wikipedia'], steps: 2,
    tokens: { prompt: 100, completion: 20, total: 120 }, latencyMs: 900, votes, ...over,
  };
}
const up = (at = 1) => ({ vote: 'up' as const, at });
const down = (reason?: string, at = 1) => ({ vote: 'down' as const, ...(reason ? { reason } : {}), at });

describe('the key words of a liked answer', () => {
  it('are its numbers that the question and the thread did not already say, as written', () => {
    expect(keyWords('17 × 3 is **51**.', 'What is 17 times 3?')).toEqual(['51']);
    expect(keyWords('17 × 4 is 68, and 1,234.5 more.', 'What is 17 times 3?\n17 × 3 is 51.\nAnd times 4?')).toEqual(['68', '1,234.5']);
    // Citation marks, links and the digits of a name (E16) are not numbers of the answer.
    expect(keyWords('About **463 km** by the E16 [1]: see https://vegvesen.no/2024.', 'How far is it from Oslo to Bergen?')).toEqual(['463']);
  });

  it('without numbers, names and long words the question does not hold; none when nothing stands out', () => {
    expect(keyWords('The capital of Australia is Canberra, not Sydney.', 'What is the capital of Australia?')).toEqual(['Canberra', 'Sydney']);
    expect(keyWords('Yes, that is right.', 'Is that right?')).toEqual([]);
  });
});

describe('a rated answer as a case', () => {
  it('liked: `contains` of its key words, with the place\'s tools the terminal has, tags and meta; no member ids', () => {
    const line = feedbackCase({ record: rated({ '111': up(), '222': up() }), channelName: 'travel', link: 'https://discord.com/channels/100/300/400' });
    expect(line).toMatchObject({
      id: 'feedback-ab12cd34', question: 'How far is it from Oslo to Bergen by road?', expect: { contains: ['463', '7'] }, tags: ['travel', 'gpt-4o-mini'],
      tools: ['calculate', 'wikipedia'],
      meta: { rating: { up: 2, down: 0 }, place_tools: ['calculate', 'remember', 'search_knowledge', 'wikipedia'], link: 'https://discord.com/channels/100/300/400' },
    });
    expect(JSON.stringify(line)).not.toMatch(/111|222/);
  });

  it('as many 👎 as 👍 or more: a judge rubric quoting the reasons and the rejected answer', () => {
    const line = feedbackCase({ record: rated({ a: up(), b: down('The E16 is closed in winter.'), c: down() }) });
    const judge = (line.expect as { judge: string }).judge;
    expect(judge).toContain('👎, saying (their words, quoted): "The E16 is closed in winter."');
    expect(judge).toContain('That answer was: "About **463 km** by the E16 [1]');
    expect(feedbackCase({ record: rated({ a: down() }) }).expect).toEqual({ judge: expect.stringContaining('👎 without saying why') });
    // Liked, but nothing in it to look for: judged against the liked answer instead.
    expect(feedbackCase({ record: rated({ a: up() }, { answer: 'Yes.', question: 'Is it far?' }) }).expect).toEqual({ judge: expect.stringContaining('👍. It was: "Yes."') });
  });

  it('a suite of them is read back by the suite reader, however many reasons and however long the answer; answers without text or votes are left out', () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`m${i}`, down(`${'Reason '.repeat(40)}${i}`)]));
    const { body, cases } = feedbackSuite([
      { record: rated(many, { answer: 'x'.repeat(8_000), id: 'many' }) },
      { record: rated({ a: up() }, { id: 'liked', persona: 'Answer like a pirate.' }), history: [{ role: 'user', content: 'Earlier?' }, { role: 'assistant', content: 'Earlier.' }] },
      { record: rated({ a: up() }, { id: 'reset', question: '', answer: '', removed: 'reset' }) },
      { record: rated({}, { id: 'unrated' }) },
    ]);
    expect(cases).toBe(2);
    const read = parseSuite(body, 'export.jsonl');
    expect(read.map((c) => c.name)).toEqual(['feedback-many', 'feedback-liked']);
    expect(read[0]!.expect.judge!.length).toBeLessThanOrEqual(4_000);
    expect(read[1]).toMatchObject({ persona: 'Answer like a pirate.', history: [{ role: 'user', content: 'Earlier?' }, { role: 'assistant', content: 'Earlier.' }] });
    expect(feedbackSuite([{ record: rated({}) }])).toEqual({ body: '', cases: 0 });
  });
});
