/**
 * How a wait for approval ends when nobody approves it in time, or its thread is reset: end to end, with
 * the production defaults (a day's wait), one bot for the file and an injected clock moved past the
 * deadline instead of waiting a day (the sweep, once a minute, never runs meanwhile). A press on a wait
 * that has ended, or whose time is up, runs nothing: the deadline is checked when the button is pressed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../fake-discord/index.js';
import { command, replyTo, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import type { WaitingTurnRecord } from '../../src/state/index.js';
import { buttonsOf, sleep } from './waiting.js';

let w: ModerationWorld;
/** The bot's clock: the real time, or a moment a case holds it at. */
let frozenAt: number | undefined;
/** How many times the calculate tool's code ran. */
let runs = 0;

beforeAll(async () => {
  w = await startModeration({
    now: () => new Date(frozenAt ?? Date.now()),
    toolRuns: {
      calculate: async () => {
        runs++;
        return '42';
      },
    },
  });
  const made = await command(w.fake, 'tools', sub('approval', { tool: 'calculate', mode: 'ask' }), { userId: w.modId });
  expect(made.content).toMatch(/made calls to `calculate` wait for approval/);
});
afterEach(() => {
  frozenAt = undefined;
});
afterAll(async () => {
  await w?.h.close();
});

/** An /ask whose run stops at `calculate`: its approval request, once the record knows where it is. */
async function waitingAsk(question: string): Promise<{ request: FakeMessage; record: WaitingTurnRecord }> {
  const { fake, model, h } = w;
  model.script({ content: 'I will compute it.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] });
  const since = fake.mark();
  fake.sendSlashCommand({ name: 'ask', options: { question } });
  const request = await fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**') && buttonsOf(m).length === 2, 10_000, { since });
  // Polled: no event says when the record learns where its request and its Stop button are.
  for (const end = Date.now() + 10_000; Date.now() < end; await sleep(20)) {
    for (const entry of await h.storage.waitingTurns.list()) {
      const record = await h.storage.waitingTurns.get(entry.id);
      if (record?.calls[0]?.messageId === request.id && (record.turn as { stopMessage?: unknown }).stopMessage) return { request, record };
    }
  }
  throw new Error('timed out waiting for the record of the approval request');
}

/** Press Approve or Deny on a request (by its button's id, as a client still showing it would) and read the private answer. */
async function press(request: FakeMessage, label: 'Approve' | 'Deny', customIds = buttonsOf(request)): Promise<string> {
  const button = customIds.find((b) => b.label === label)!;
  const click = w.fake.clickButton({ messageId: request.id, customId: button.custom_id, channelId: request.channelId });
  return (await replyTo(w.fake, click, 10_000)).content;
}

describe('a wait for approval that ends', () => {
  it('/reset while the first run of a thread waits ends the wait, says so, and a later Approve runs nothing', async () => {
    const { fake, h } = w;
    const { request } = await waitingAsk('What is 6 times 7, first?');
    const threadId = request.channelId;
    const buttons = buttonsOf(request);

    const asked = fake.sendSlashCommand({ name: 'reset', channelId: threadId });
    const prompt = await replyTo(fake, asked);
    expect(prompt.content).toMatch(/Forget everything said in this thread so far\?.*The run waiting for approval here is ended first\./);
    fake.clickButton({ messageId: prompt.id, customId: buttonsOf(prompt)[0]!.custom_id, channelId: threadId });
    const note = await fake.waitForMessage((m) => m.channelId === threadId && m.content.includes('cleared my memory'), 10_000);
    expect(note.content).toContain('The run waiting for approval was ended with it.');
    await fake.waitFor(() => fake.message(prompt.id)!.content.startsWith('Done'), 10_000);
    expect(fake.message(prompt.id)!.content).toBe("Done: this thread's memory is cleared, and the run waiting for approval was ended.");
    expect(fake.message(request.id)!.content).toContain("⏹️ Not run: the thread's memory was cleared.");
    expect(buttonsOf(fake.message(request.id)!)).toEqual([]);
    expect(await h.storage.waitingTurns.list()).toEqual([]);

    // A moderator's client still showing the old buttons presses Approve: nothing runs.
    const requests = w.model.requests.length;
    expect(await press(request, 'Approve', buttons)).toBe('This call was already decided, or its run has ended.');
    expect(runs).toBe(0);
    expect(w.model.requests).toHaveLength(requests);
    expect((await h.storage.conversations.load(threadId)).messages).toEqual([]);
  });

  it('Approve 100 ms after the deadline is refused with a note, ends the wait as the sweep would, and runs nothing', async () => {
    const { fake, h } = w;
    const { request, record } = await waitingAsk('What is 6 times 7, late?');
    const requests = w.model.requests.length;
    frozenAt = record.expiresAt + 100;

    expect(await press(request, 'Approve')).toBe('Too late: this call waited 24 h for a decision and its time ran out, so it was not run and its run has ended. Ask again if you still need it.');
    expect(runs).toBe(0);
    expect(fake.message(request.id)!.content).toMatch(/⌛ Not run: no decision within 24 h\.$/);
    expect(buttonsOf(fake.message(request.id)!)).toEqual([]);
    const told = fake.messagesIn(request.channelId).find((m) => m.content.startsWith('⌛ This run waited 24 h for an approval nobody gave'));
    expect(told).toBeDefined();
    expect(fake.botMessages(request.channelId).some((m) => buttonsOf(m).some((b) => b.label === 'Stop'))).toBe(false);
    expect(await h.storage.waitingTurns.get(record.id)).toBeUndefined();
    const audit = (await h.storage.guildSettings.get(w.guildId)).auditLog.map((e) => e.action);
    expect(audit).toContain('tools.approval.timeout');
    expect(audit).not.toContain('tools.approval.approved');
    expect(w.model.requests).toHaveLength(requests);
  });

  it('Deny pressed at the very deadline is refused too: the run does not go on', async () => {
    const { fake } = w;
    const { request, record } = await waitingAsk('What is 6 times 7, at the deadline?');
    const requests = w.model.requests.length;
    frozenAt = record.expiresAt;

    expect(await press(request, 'Deny')).toMatch(/^Too late: this call waited 24 h/);
    expect(fake.message(request.id)!.content).toMatch(/⌛ Not run: no decision within 24 h\.$/);
    expect(w.model.requests).toHaveLength(requests);
    expect(runs).toBe(0);
  });
});
