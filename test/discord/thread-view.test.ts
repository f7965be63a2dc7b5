/**
 * The thread view never lets showing a step end a turn: an event it cannot render is logged and left
 * out, and the answer still goes out, with a line saying some steps could not be shown.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from 'discord.js';
import { silentLogger } from '../../src/logger.js';
import type { Outgoing, TurnTarget } from '../../src/discord/posting/target.js';
import { RunRegistry } from '../../src/discord/runs/run-registry.js';
import { ThreadView } from '../../src/discord/turn/thread-view.js';
import type { AgentEvent } from '../../src/agent/types.js';

function fakeTarget() {
  const posted: Array<{ id: string; content: string }> = [];
  const target: TurnTarget = {
    conversationKey: 't1',
    client: {} as never,
    send: async (m: Outgoing) => {
      const message = { id: String(posted.length + 1), channelId: 't1', content: m.content };
      posted.push(message);
      return message as unknown as Message;
    },
    edit: async (message: Message, m: Outgoing) => {
      posted.find((p) => p.id === message.id)!.content = m.content;
    },
    remove: async () => undefined,
    typing: async () => undefined,
    canAttachFiles: () => true,
  };
  return { target, posted };
}

describe('the thread view', () => {
  it('an event it cannot render is left out, and the answer still goes out with a note', async () => {
    const { target, posted } = fakeTarget();
    const runs = new RunRegistry();
    const { run } = runs.start({ threadId: 't1', starterId: 'u1' });
    const view = new ThreadView({ target, run, runs, display: 'full', model: 'm', pacing: { stepLogIntervalMs: 0, answerEditIntervalMs: 0 }, logger: silentLogger() });
    const events: AgentEvent[] = [
      { type: 'run-start', protocol: 'native', maxSteps: 4, tools: ['calculate'] },
      { type: 'step-start', step: 1, maxSteps: 4 },
      { type: 'action', step: 1, callId: 'c1', tool: 'calculate', input: { expression: '1+1' } },
      // A malformed observation (no output): rendering it throws.
      { type: 'observation', step: 1, callId: 'c1', tool: 'calculate', output: undefined as unknown as string, isError: false, durationMs: 3, truncated: false },
      { type: 'answer', text: 'Two.', sources: [], forced: false },
      { type: 'run-end', reason: 'answer', steps: 2, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, durationMs: 5 },
    ];
    for (const event of events) expect(() => view.show(event)).not.toThrow();
    const outcome = await view.finish({});
    expect(outcome).toMatchObject({ kind: 'answered', answer: 'Two.' });
    const answer = posted.find((p) => p.content.startsWith('### Answer'))!;
    expect(answer.content).toContain('Two.');
    expect(answer.content).toMatch(/Some steps could not be shown here/);
  });
});
