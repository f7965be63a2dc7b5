/**
 * Seeded random chat histories for the trimming property tests: system prompts, several people asking,
 * rounds of parallel tool calls with results in any order, huge observations, turns cut short. The same
 * seed always gives the same history, so a failure names the seed that reproduces it.
 */
import type { ChatMessage, ToolCall } from '../../../src/agent/types.js';

/** mulberry32: small, fast, good enough for test data. */
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]) => items[int(0, items.length - 1)]!,
  };
}

export type Rng = ReturnType<typeof seededRandom>;

const WORDS = [
  'the', 'thread', 'agent', 'Wikipedia', 'says', 'population', 'of', 'Paris', 'is', '2,102,650', 'in', '2023',
  'calculate', '(3+4)*12', 'résumé', 'naïve', '東京', 'データ', 'emoji', '🙂', '{"a":1}', 'https://example.org/x?y=1',
  'Observation:', 'Thought:', 'answer', 'because', 'therefore', 'tokens', 'trim', '\n', '  ', 'x'.repeat(40),
];

export function randomText(rng: Rng, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(rng.pick(WORDS));
  return out.join(' ');
}

/** A valid OpenAI message sequence of a few turns with tool calls. */
export function randomHistory(rng: Rng): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let nextId = 0;
  if (rng.chance(0.7)) messages.push({ role: 'system', content: randomText(rng, rng.int(5, 80)) });
  if (rng.chance(0.1)) messages.push({ role: 'assistant', content: 'Hello! Ask me anything.' });
  const turns = rng.int(1, 12);
  for (let t = 0; t < turns; t++) {
    const big = rng.chance(0.05);
    messages.push({ role: 'user', content: randomText(rng, big ? rng.int(800, 2_000) : rng.int(1, 120)), ...(rng.chance(0.3) ? { name: 'Ann' } : {}) });
    const rounds = rng.int(0, 3);
    for (let r = 0; r < rounds; r++) {
      const calls: ToolCall[] = Array.from({ length: rng.int(1, 3) }, () => ({
        id: `call_${nextId++}`,
        type: 'function',
        function: { name: rng.pick(['calculate', 'wikipedia', 'read_url']), arguments: JSON.stringify({ q: randomText(rng, rng.int(1, 8)) }) },
      }));
      messages.push({ role: 'assistant', content: rng.chance(0.5) ? randomText(rng, rng.int(1, 30)) : null, tool_calls: calls });
      const order = [...calls].sort(() => rng.next() - 0.5);
      for (const call of order) {
        const size = rng.chance(0.2) ? rng.int(500, 3_000) : rng.int(1, 150);
        messages.push({ role: 'tool', tool_call_id: call.id, content: randomText(rng, size) });
      }
    }
    if (rng.chance(0.85)) messages.push({ role: 'assistant', content: randomText(rng, rng.int(1, 100)) });
  }
  return messages;
}

/**
 * Written independently of the code under test: every tool message answers a call of the assistant
 * message just before its block, and every call is answered before anything else is said.
 */
export function openAiSequenceProblem(messages: readonly ChatMessage[]): string | undefined {
  let pending: string[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      const at = pending.indexOf(m.tool_call_id);
      if (at < 0) return `tool message ${i} (${m.tool_call_id}) follows no call of that id`;
      pending.splice(at, 1);
    } else {
      if (pending.length) return `message ${i} (${m.role}) arrives while ${pending.join(',')} are unanswered`;
      pending = m.role === 'assistant' && m.tool_calls ? m.tool_calls.map((c) => c.id) : [];
    }
  }
  return pending.length ? `unanswered at the end: ${pending.join(',')}` : undefined;
}
