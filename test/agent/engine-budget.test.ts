import { describe, expect, it } from 'vitest';
import { createEngine, type CallBudget } from '../../src/agent/engine.js';
import type { Usage } from '../../src/agent/types.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { drain, ofType } from './helpers.js';

const question = [{ role: 'user' as const, content: 'What is 2 + 3, then 5 + 5?' }];

/** A budget shared with the outside world: `spent` grows with each call; it refuses once `cap` is reached. */
function sharedBudget(cap: number) {
  const seen: Usage[] = [];
  let spent = 0;
  let checks = 0;
  const budget: CallBudget = {
    async beforeCall() {
      checks++;
      return spent >= cap ? `Stopped: the budget of ${cap} is spent.` : undefined;
    },
    async afterCall({ messages, reply }) {
      expect(messages[0]!.role).toBe('system');
      seen.push(reply.usage);
      spent += reply.usage.totalTokens;
    },
  };
  return { budget, seen, spend: (n: number) => void (spent += n), checks: () => checks };
}

describe('a call budget shared with other runs', () => {
  it('is asked before every model call and told after each, with the usage the server reported', async () => {
    const { tools } = makeTestTools();
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }], usage: { prompt: 100, completion: 20 } },
      { content: 'Five.', usage: { prompt: 150, completion: 5 } },
    );
    const shared = sharedBudget(10_000);
    const { result } = await drain(createEngine({ model, tools, defaults: { protocol: 'native' } }).run({ messages: question, callBudget: shared.budget }));
    expect(result).toMatchObject({ reason: 'answer', answer: 'Five.' });
    expect(shared.checks()).toBe(2);
    expect(shared.seen.map((u) => u.totalTokens)).toEqual([120, 155]);
  });

  it('a refusal ends the run before the call: no further model call, no forced answer, what it did is kept', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }], usage: { prompt: 900, completion: 200 } },
      { toolCalls: [{ name: 'add', arguments: { a: 5, b: 5 } }], usage: { prompt: 900, completion: 200 } },
    );
    const shared = sharedBudget(2_000);
    // Another run spends from the same budget meanwhile: the second call still fits, the third does not.
    shared.spend(500);
    const { events, result } = await drain(createEngine({ model, tools, defaults: { protocol: 'native' } }).run({ messages: question, callBudget: shared.budget }));
    expect(model.requests).toHaveLength(2);
    expect(calls).toHaveLength(2);
    expect(result).toMatchObject({ reason: 'token-budget', answer: undefined, steps: 2, error: { code: 'token-budget', message: 'Stopped: the budget of 2000 is spent.' } });
    expect(result.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(ofType(events, 'answer')).toHaveLength(0);
    expect(ofType(events, 'run-end')[0]).toMatchObject({ reason: 'token-budget', usage: { totalTokens: 2_200 } });
  });
});
