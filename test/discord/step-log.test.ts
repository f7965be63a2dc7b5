import { describe, expect, it } from 'vitest';
import { StepLog, type LogSink } from '../../src/discord/posting/step-log.js';
import { formatAnswer, formatStep } from '../../src/discord/posting/format-steps.js';

function fakeSink(delayMs = 0) {
  const messages: Array<{ content: string; button: boolean; edits: number }> = [];
  const sink: LogSink<number> = {
    async send({ content, button }) {
      await new Promise((r) => setTimeout(r, delayMs));
      messages.push({ content, button, edits: 0 });
      return messages.length - 1;
    },
    async edit(handle, { content, button }) {
      await new Promise((r) => setTimeout(r, delayMs));
      Object.assign(messages[handle]!, { content, button, edits: messages[handle]!.edits + 1 });
    },
  };
  return { sink, messages };
}

describe('the step log', () => {
  it('shows the first step at once and coalesces a fast burst into a few edits', async () => {
    const { sink, messages } = fakeSink(5);
    const log = new StepLog(sink, { minEditIntervalMs: 100, stopButton: true });
    log.append('step 1');
    await new Promise((r) => setTimeout(r, 20));
    expect(messages).toEqual([{ content: 'step 1', button: true, edits: 0 }]);
    for (let i = 2; i <= 20; i++) log.append(`step ${i}`);
    await log.close();
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content.split('\n')).toHaveLength(20);
    expect(messages[0]!.button).toBe(false);
    expect(log.writes).toBeLessThanOrEqual(3);
  });

  it('starts a new message only when the current one would pass 2,000 characters', async () => {
    const { sink, messages } = fakeSink();
    const log = new StepLog(sink, { minEditIntervalMs: 10, stopButton: true });
    for (let i = 0; i < 5; i++) log.append(`${i}`.repeat(700));
    await log.close();
    expect(messages.map((m) => m.content.length)).toEqual([1401, 1401, 700]);
    expect(messages.every((m) => m.content.length <= 2000 && !m.button)).toBe(true);
  });

  it('stops writing after a failed write and keeps the error for the caller', async () => {
    let calls = 0;
    const log = new StepLog<number>({
      async send() {
        calls++;
        throw new Error('Missing Permissions');
      },
      async edit() {
        calls++;
      },
    }, { minEditIntervalMs: 1 });
    log.append('a');
    log.append('b');
    await log.close();
    expect((log.failure as Error).message).toBe('Missing Permissions');
    expect(calls).toBe(1);
  });
});

describe('step formatting', () => {
  const action = { type: 'action' as const, step: 1, callId: 'c', tool: 'calculate', input: { expression: '2 + 2' } };
  const obs = { type: 'observation' as const, step: 1, callId: 'c', tool: 'calculate', output: 'x```y', isError: false, durationMs: 12, truncated: false };

  it('shows the action as tool(input) in code and the observation in a code block that cannot be broken out of', () => {
    expect(formatStep(action, 'full')).toBe('🔧 `calculate(2 + 2)`');
    const text = formatStep(obs, 'full')!;
    expect(text.startsWith('↳ result (12 ms)\n```\n')).toBe(true);
    expect((text.match(/```/g) ?? []).length).toBe(2);
  });

  it('hides thoughts and results at the actions level and everything at the answer level', () => {
    expect(formatStep({ type: 'thought', step: 1, text: 'hmm' }, 'actions')).toBeUndefined();
    expect(formatStep(obs, 'actions')).toBeUndefined();
    expect(formatStep(action, 'actions')).toBeDefined();
    expect(formatStep(action, 'answer')).toBeUndefined();
  });

  it('sets the answer apart with its sources and a footer', () => {
    const text = formatAnswer('Paris.', { steps: 2, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 1234 }, durationMs: 2500, reason: 'step-limit' }, [
      { title: 'Paris', url: 'https://en.wikipedia.org/wiki/Paris' },
    ]);
    expect(text).toBe('### Answer\nParis.\n\n**Sources:** [1] Paris ([en.wikipedia.org](<https://en.wikipedia.org/wiki/Paris>))\n\n-# 2 steps · 1,234 tokens · 2.5 s · step limit reached: answered from what was found so far');
  });

  it('numbers the sources as the answer cites them; a document without an address is named, not linked', () => {
    const text = formatAnswer('See [1] and [2].', { steps: 1, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, durationMs: 100, reason: 'answer' }, [
      { title: 'Events [wiki]', url: 'https://wiki.example.com/events' },
      { title: 'Rules.pdf' },
    ]);
    expect(text).toContain('**Sources:** [1] Events \\[wiki\\] ([wiki.example.com](<https://wiki.example.com/events>)) · [2] Rules.pdf\n');
  });
});
