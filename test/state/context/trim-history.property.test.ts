import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/agent/types.js';
import { TokenCounter, trimHistory } from '../../../src/state/index.js';
import { REPLY_PRIMING } from '../../../src/state/context/token-counter.js';
import { openAiSequenceProblem, randomHistory, seededRandom } from '../helpers/random-history.js';

const CASES = 200;
const NOTE = '\n[… shortened:';

/** The output message stands for the input message: the same one, or it with shortened content. */
function standsFor(out: ChatMessage, original: ChatMessage): boolean {
  if (out === original) return true;
  if (out.role !== 'tool' || original.role !== 'tool' || out.tool_call_id !== original.tool_call_id) return false;
  const cut = out.content.indexOf(NOTE);
  return cut >= 0 && original.content.startsWith(out.content.slice(0, cut));
}

describe('trimming random histories with tool calls', () => {
  const fresh = new TokenCounter('o200k_base');

  for (let seed = 1; seed <= CASES; seed++) {
    it(`keeps seed ${seed} valid, within budget and with its newest turn`, () => {
      const rng = seededRandom(seed);
      const input = randomHistory(rng);
      const before = JSON.stringify(input);
      const fullSize = REPLY_PRIMING + input.reduce((n, m) => n + fresh.message(m), 0);
      const budget = rng.int(60, Math.max(80, Math.ceil(fullSize * 1.1)));
      const reserveForReply = rng.int(0, Math.floor(budget / 4));
      const observationTokens = rng.pick([32, 100, 300]);

      const result = trimHistory(input, { budget, reserveForReply, model: 'gpt-4o-mini', observationTokens });
      const out = result.messages;

      expect(openAiSequenceProblem(out), `seed ${seed}`).toBeUndefined();
      expect(JSON.stringify(input), 'the input is never changed').toBe(before);
      const counted = REPLY_PRIMING + out.reduce((n, m) => n + fresh.message(m), 0);
      expect(result.totalTokens).toBe(counted);
      expect(result.droppedTokens).toBe(fullSize - counted);
      expect(result.droppedMessages).toBe(input.length - out.length);
      if (!result.overBudget) expect(result.totalTokens).toBeLessThanOrEqual(budget - reserveForReply);
      if (fullSize <= budget - reserveForReply) expect(out).toEqual(input);

      // Leading system messages stay, untouched.
      const pinned = input.findIndex((m) => m.role !== 'system');
      const systemCount = pinned < 0 ? input.length : pinned;
      expect(out.slice(0, systemCount)).toEqual(input.slice(0, systemCount));

      // The newest turn (from the last user message on) is all there, in order.
      const lastUser = input.map((m) => m.role).lastIndexOf('user');
      const newest = input.slice(lastUser < 0 ? systemCount : lastUser);
      const tail = out.slice(out.length - newest.length);
      expect(tail.every((m, i) => standsFor(m, newest[i]!)), `seed ${seed}: newest turn kept`).toBe(true);

      // The output is the input minus whole turns, in the original order.
      let j = 0;
      for (const m of out) {
        while (j < input.length && !standsFor(m, input[j]!)) j++;
        expect(j, `seed ${seed}: output is an ordered selection of the input`).toBeLessThan(input.length);
        j++;
      }
      if (result.overBudget) expect(out.length).toBe(systemCount + newest.length);
    });
  }
});
