import { describe, expect, it } from 'vitest';
import { TextStreamClassifier, type StreamedText } from '../../src/agent/text-stream.js';

/** Stream `reply` cut into the given pieces; merge what comes out by kind, in order. */
function stream(pieces: string[]): StreamedText[] {
  const c = new TextStreamClassifier();
  const out = [...pieces.flatMap((p) => c.push(p)), ...c.end()];
  const merged: StreamedText[] = [];
  for (const part of out) {
    const last = merged.at(-1);
    if (last && last.kind === part.kind) last.text += part.text;
    else merged.push({ ...part });
  }
  return merged;
}

/** Every way of cutting `reply` in two, plus one piece per character. */
function cuttings(reply: string): string[][] {
  const all = [[reply], [...reply]];
  for (let i = 1; i < reply.length; i++) all.push([reply.slice(0, i), reply.slice(i)]);
  return all;
}

const CASES: Array<[string, string, StreamedText[]]> = [
  ['thought then action: the action is held back', 'Thought: I will add them.\nAction: calculate: 2 + 2\nPAUSE', [{ kind: 'thought', text: 'I will add them.' }]],
  ['thought then answer', 'Thought: I know this.\nAnswer: It is **4**.\nThat is all.', [
    { kind: 'thought', text: 'I know this.' },
    { kind: 'answer', text: 'It is **4**.\nThat is all.' },
  ]],
  ['nothing after a self-written observation', 'Answer: 42\nObservation: the tool said 41\nAnswer: 41', [{ kind: 'answer', text: '42' }]],
  ['prose without labels is thought text', 'Hello there.\nA second line: with a colon far enough along to not be a label.', [
    { kind: 'thought', text: 'Hello there.\nA second line: with a colon far enough along to not be a label.' },
  ]],
  ['bold labels and a final answer label', '**Thought:** checking\n**Final Answer:** Paris', [
    { kind: 'thought', text: 'checking' },
    { kind: 'answer', text: 'Paris' },
  ]],
  ['an answer that starts in bold keeps its markers', 'Answer: **4** is it.', [{ kind: 'answer', text: '**4** is it.' }]],
  ['bold labels with the colon inside, a bold PAUSE held back', '**Thought:** I need to multiply.\n**Action:** calculate: 15 * 25\n**PAUSE**', [{ kind: 'thought', text: 'I need to multiply.' }]],
  ['bold labels with the colon outside', '**Thought**: multiply\n**Action**: calculate: 15 * 25\n**PAUSE**', [{ kind: 'thought', text: 'multiply' }]],
  ['underlined labels and PAUSE', '__Thought:__ multiply\n__Action:__ calculate: 15 * 25\n__PAUSE__', [{ kind: 'thought', text: 'multiply' }]],
  ['lower-case labels and pause', 'thought: multiply\naction: calculate: 15 * 25\npause', [{ kind: 'thought', text: 'multiply' }]],
  ['upper-case labels and a bold answer', 'THOUGHT: done\n**ANSWER:** 375', [{ kind: 'thought', text: 'done' }, { kind: 'answer', text: '375' }]],
  ['a colon inside answer text is not a label', 'Answer: Note: the time is 10:30.', [{ kind: 'answer', text: 'Note: the time is 10:30.' }]],
];

describe('classifying a streamed text-protocol reply', () => {
  for (const [name, reply, expected] of CASES) {
    it(`${name}, however the stream is cut`, () => {
      for (const pieces of cuttings(reply)) expect(stream(pieces), JSON.stringify(pieces)).toEqual(expected);
    });
  }
});
