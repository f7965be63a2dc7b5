/**
 * Fuzzing what the bot renders from untrusted data: the step log (thoughts, calls, results, notes)
 * and the audit trail (`/tools audit`, the log channel), fed values nested 10,000 deep, 1 MB strings,
 * characters of every Unicode category and Markdown written to deceive (links that close the bot's and
 * open their own, masked links in titles, backticks, fences, mentions). Whatever comes in: no throw,
 * every message at most 2,000 characters, and no masked link but those the bot makes (labelled with
 * the host they open). Seeded, so a failure comes back the same.
 */
import { describe, expect, it } from 'vitest';
import { describeAction } from '../../src/agent/describe.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { formatAuditEntry, formatAuditLog, logChannelLine } from '../../src/discord/text/audit-text.js';
import { formatAnswer, formatStep, inlineCode } from '../../src/discord/posting/format-steps.js';
import { splitMessage } from '../../src/discord/posting/split-message.js';
import { StepLog, type LogSink } from '../../src/discord/posting/step-log.js';
import { linksOutsideCode } from './markup.js';

/** mulberry32: small, fast and seeded. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MARKUP = ['[', ']', '(', ')', '<', '>', '`', '```', '*', '_', '~', '|', '||', '#', '-', '@', '@everyone', '<@123>', '\\', ':', '\n', '\r\n', '](', '](<'];
const DECEPTIONS = [
  'https://news.example/a>) · [Official Discord login](https://phish.example/login',
  '[Official Discord login](https://phish.example/login)',
  '[Official Discord login](<https://phish.example/login>)',
  '```\n[x](https://phish.example)\n```',
  '`[x](https://phish.example)`',
  'javascript:alert(1)',
  'https://discord.com@phish.example/',
  '[[nested]](https://phish.example)',
];
// One character from each kind of code point: letters of many scripts, marks, numbers, punctuation,
// symbols, separators, controls, format characters (bidi, tags, zero-width), private use, unassigned,
// lone surrogates, emoji with joiners.
const POOLS: Array<[number, number]> = [
  [0x20, 0x7e], [0x0, 0x1f], [0x7f, 0x9f], [0xa0, 0x24f], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff], [0x590, 0x6ff],
  [0x900, 0x97f], [0xe00, 0xe7f], [0x1100, 0x11ff], [0x2000, 0x206f], [0x2100, 0x27bf], [0x3000, 0x30ff], [0x4e00, 0x9fff],
  [0xac00, 0xd7a3], [0xd800, 0xdfff], [0xe000, 0xf8ff], [0xfe00, 0xfe0f], [0xfff0, 0xffff], [0x1f300, 0x1faff], [0xe0000, 0xe007f],
  [0x10000, 0x10ffff],
];

function text(rand: () => number, max = 300): string {
  const length = Math.floor(rand() * max);
  let out = '';
  while (out.length < length) {
    const pick = rand();
    if (pick < 0.2) out += MARKUP[Math.floor(rand() * MARKUP.length)];
    else if (pick < 0.25) out += DECEPTIONS[Math.floor(rand() * DECEPTIONS.length)];
    else if (pick < 0.28) out += '👩🏽‍💻';
    else {
      const [lo, hi] = POOLS[Math.floor(rand() * POOLS.length)]!;
      out += String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
    }
  }
  return out;
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 3 === 0 ? [value] : { [i % 2 ? 'a' : '[x](https://phish.example)']: value };
  return value;
}

const MEGABYTE = '[Official](https://phish.example) '.repeat(30_000).slice(0, 1_000_000);

function value(rand: () => number): unknown {
  const pick = rand();
  if (pick < 0.05) return nested(10_000, text(rand));
  if (pick < 0.1) return MEGABYTE;
  if (pick < 0.15) return { query: MEGABYTE, deep: nested(2_000, 1) };
  if (pick < 0.3) return Array.from({ length: Math.floor(rand() * 50) }, () => text(rand, 40));
  if (pick < 0.6) return { [text(rand, 20)]: text(rand), n: rand() * 1e9 };
  return text(rand);
}

function event(rand: () => number, i: number): AgentEvent {
  const tool = rand() < 0.3 ? text(rand, 80) : 'web_search';
  switch (Math.floor(rand() * 5)) {
    case 0:
      return { type: 'thought', step: i, text: rand() < 0.05 ? MEGABYTE : text(rand, 2_000) };
    case 1:
      return { type: 'action', step: i, callId: `c${i}`, tool, input: value(rand) };
    case 2:
      return { type: 'observation', step: i, callId: `c${i}`, tool, output: rand() < 0.05 ? MEGABYTE : text(rand, 3_000), isError: rand() < 0.3, durationMs: rand() * 1e6, truncated: false };
    case 3:
      return { type: 'format-reminder', step: i, text: text(rand) };
    default:
      return { type: 'protocol-fallback', step: i, from: 'native', to: 'text', reason: text(rand) } as AgentEvent;
  }
}

function sink() {
  const messages: string[] = [];
  const log: LogSink<number> = {
    async send({ content }) {
      messages.push(content);
      return messages.length - 1;
    },
    async edit(handle, { content }) {
      messages[handle] = content;
    },
  };
  return { log, messages };
}

describe('rendering untrusted data (fuzzed)', () => {
  it('the step log: no throw, every message at most 2,000 characters, no masked link at all', async () => {
    for (const seed of [1, 2, 3]) {
      const rand = random(seed);
      const { log, messages } = sink();
      const steps = new StepLog(log, { minEditIntervalMs: 0, stopButton: true });
      for (let i = 0; i < 150; i++) {
        for (const level of ['full', 'actions'] as const) {
          const shown = formatStep(event(rand, i), level);
          if (shown !== undefined) steps.append(shown);
        }
      }
      await steps.close();
      expect(messages.length).toBeGreaterThan(0);
      for (const content of messages) {
        expect(content.length).toBeLessThanOrEqual(2_000);
        expect(linksOutsideCode(content)).toEqual([]);
      }
    }
  });

  it('the answer\'s Sources line: links only the bot made, labelled with the host each opens', () => {
    const rand = random(7);
    for (let round = 0; round < 60; round++) {
      const sources = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => ({
        title: rand() < 0.1 ? MEGABYTE : text(rand, 400),
        url: rand() < 0.5 ? DECEPTIONS[Math.floor(rand() * DECEPTIONS.length)] : `https://${['example.com', 'a*b_c.example', 'аррӏе.com'][Math.floor(rand() * 3)]}/${text(rand, 60)}`,
      }));
      const answer = formatAnswer('The answer.', { steps: 1, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, durationMs: 1, reason: 'answer' }, sources);
      for (const part of splitMessage(answer)) expect(part.length).toBeLessThanOrEqual(2_000);
      for (const link of linksOutsideCode(answer)) {
        const target = new URL(link.target);
        expect(['http:', 'https:']).toContain(target.protocol);
        expect(target.username).toBe('');
        expect(link.label).toBe(target.hostname);
      }
    }
  });

  it('the audit trail and the log channel: no throw, at most 2,000 characters, no masked link', () => {
    const rand = random(11);
    const entries = Array.from({ length: 40 }, (_, i) => {
      const described = describeAction(text(rand, 60), value(rand));
      return {
        at: 1_700_000_000_000 + i,
        actorId: String(100 + i),
        actorName: rand() < 0.1 ? MEGABYTE : text(rand, 100),
        action: 'tools.approval.approved',
        detail: `${rand() < 0.5 ? 'approved' : 'denied'} ${inlineCode(described, 200)}`,
      };
    });
    for (const entry of entries) {
      for (const content of [formatAuditEntry(entry), logChannelLine({ ...entry, detail: entry.detail })]) {
        expect(content.length).toBeLessThanOrEqual(2_000);
        expect(linksOutsideCode(content)).toEqual([]);
      }
    }
    for (const count of [1, 10, 25]) {
      const content = formatAuditLog(entries, count);
      expect(content.length).toBeLessThanOrEqual(2_000);
      expect(linksOutsideCode(content)).toEqual([]);
    }
  });
});
