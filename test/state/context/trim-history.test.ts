import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/agent/types.js';
import { TokenCounter, sequenceProblem, trimHistory } from '../../../src/state/index.js';
import { openAiSequenceProblem, randomHistory, randomText, seededRandom } from '../helpers/random-history.js';
import { toolStep } from '../helpers/stores.js';

const model = 'gpt-4o-mini';
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const system: ChatMessage = { role: 'system', content: 'You are a helpful bot.' };
const turn = (n: number, observation = 'short result'): ChatMessage[] => [
  { role: 'user', content: `question ${n}` },
  ...toolStep(`c${n}`, 'wikipedia', '{}', observation),
  { role: 'assistant', content: `answer ${n}` },
];

describe('trimHistory', () => {
  it('returns a history that fits unchanged', () => {
    const history = [system, ...turn(1), ...turn(2)];
    const result = trimHistory(history, { budget: 10_000, model });
    expect(result.messages).toEqual(history);
    expect(result).toMatchObject({ droppedMessages: 0, droppedTurns: 0, droppedTokens: 0, shortened: 0, overBudget: false });
  });

  it('drops the oldest whole turns first, keeps the system prompt, and says how much it dropped', () => {
    const history = [system, ...turn(1), ...turn(2), ...turn(3)];
    const counter = new TokenCounter('o200k_base');
    const perTurn = turn(3).reduce((n, m) => n + counter.message(m), 0);
    const result = trimHistory(history, { budget: 3 + counter.message(system) + 2 * perTurn + 2, model, counter });
    expect(result.messages).toEqual([system, ...turn(2), ...turn(3)]);
    expect(result).toMatchObject({ droppedMessages: 4, droppedTurns: 1, overBudget: false });
    expect(result.droppedTokens).toBeGreaterThan(0);
  });

  it('shortens long old observations before dropping a turn', () => {
    const history = [...turn(1, words(2_000)), ...turn(2)];
    const result = trimHistory(history, { budget: 600, model, observationTokens: 100 });
    expect(result.droppedTurns).toBe(0);
    expect(result.shortened).toBe(1);
    const observation = result.messages[2] as { content: string };
    expect(observation.content).toMatch(/^word0 word1 .*\n\[… shortened: \d+ of \d+ tokens left out\]$/s);
    expect(result.totalTokens).toBeLessThanOrEqual(600);
  });

  it('keeps the room asked for the reply', () => {
    const history = [...turn(1), ...turn(2), ...turn(3)];
    const full = trimHistory(history, { budget: 10_000, model }).totalTokens;
    const result = trimHistory(history, { budget: full, reserveForReply: 30, model });
    expect(result.totalTokens).toBeLessThanOrEqual(full - 30);
    expect(result.droppedTurns).toBeGreaterThan(0);
  });

  it('keeps the newest turn even when it alone is too big, cutting its observations and saying so', () => {
    const history = [system, ...turn(1), { role: 'user', content: 'read this' } as ChatMessage, ...toolStep('big', 'read_url', '{}', words(5_000))];
    const result = trimHistory(history, { budget: 200, model, observationTokens: 300 });
    expect(result.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(result.shortened).toBe(1);
    expect(result.totalTokens).toBeLessThanOrEqual(200);
    const huge = trimHistory([{ role: 'user', content: words(3_000) }], { budget: 200, model });
    expect(huge.overBudget).toBe(true);
    expect(huge.messages).toHaveLength(1);
  });

  it('repairs a history with an orphaned tool result or an unanswered call before trimming', () => {
    const broken: ChatMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'tool', tool_call_id: 'ghost', content: 'orphan' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } },
          { id: 'b', type: 'function', function: { name: 'y', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'only a answered' },
      { role: 'assistant', content: 'done' },
    ];
    expect(sequenceProblem(broken)).toBeDefined();
    const result = trimHistory(broken, { budget: 10_000, model });
    expect(openAiSequenceProblem(result.messages)).toBeUndefined();
    expect(result.repaired).toBe(2);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('returns a valid sequence for randomly damaged histories', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const rng = seededRandom(seed);
      const damaged = randomHistory(rng).filter(() => !rng.chance(0.15));
      const result = trimHistory(damaged, { budget: rng.int(50, 3_000), model });
      expect(openAiSequenceProblem(result.messages), `seed ${seed}`).toBeUndefined();
    }
  });

  it('tokenizes each message once: trimming the same history again costs no counting', () => {
    const counter = new TokenCounter('o200k_base');
    const history = Array.from({ length: 30 }, (_, i) => turn(i, words(400))).flat();
    trimHistory(history, { budget: 2_000, model, counter });
    const misses = counter.misses;
    trimHistory(history, { budget: 2_000, model, counter });
    expect(counter.misses).toBe(misses);
    // A reloaded copy (new objects, same text) is found by content.
    trimHistory(structuredClone(history), { budget: 2_000, model, counter });
    expect(counter.misses).toBe(misses);
  });
});

describe('token counting', () => {
  it('uses the tokenizer of the model family', async () => {
    const { encodingForModel } = await import('../../../src/state/index.js');
    expect(encodingForModel('gpt-4o-mini')).toBe('o200k_base');
    expect(encodingForModel('gpt-4.1')).toBe('o200k_base');
    expect(encodingForModel('o3-mini')).toBe('o200k_base');
    expect(encodingForModel('gpt-4')).toBe('cl100k_base');
    expect(encodingForModel('gpt-4-turbo')).toBe('cl100k_base');
    expect(encodingForModel('gpt-3.5-turbo')).toBe('cl100k_base');
    expect(encodingForModel('openai/gpt-3.5-turbo')).toBe('cl100k_base');
    expect(encodingForModel('llama3.1:8b')).toBe('o200k_base');
  });

  it('counts real tokens, not characters divided by four', () => {
    const text = randomText(seededRandom(7), 500);
    const o200k = new TokenCounter('o200k_base').text(text);
    const cl100k = new TokenCounter('cl100k_base').text(text);
    expect(o200k).not.toBe(cl100k);
    expect(new TokenCounter('o200k_base').text('hello world')).toBe(2);
  });

  it('counts the tool calls of an assistant message', () => {
    const counter = new TokenCounter('o200k_base');
    const [call] = toolStep('c1', 'wikipedia', JSON.stringify({ query: words(50) }), '');
    expect(counter.message(call!)).toBeGreaterThan(50);
  });
});
