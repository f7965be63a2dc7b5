/**
 * A wait for approval whose saved record cannot be read back (written by another version of the bot,
 * or damaged) ends in the open: whoever presses one of its buttons, or the sweep once its time is up,
 * ends it with a note in its thread, the presser is told, the record is removed, and nothing of it runs.
 * End to end with the production defaults, one bot for the file on a SQLite file (so a case can write a
 * raw record as another version would) and an injected clock moved past the deadline instead of waiting.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'discord.js';
import type { FakeMessage } from '../fake-discord/index.js';
import { command, replyTo, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { openBackend } from '../../src/storage/open.js';
import { DEFAULT_TIMEOUTS } from '../../src/storage/key-value.js';
import type { Backend } from '../../src/storage/registry.js';
import type { WaitingTurnRecord } from '../../src/state/index.js';
import { buttonsOf, sleep } from './waiting.js';

let w: ModerationWorld;
let dir: string;
let raw: Backend;
/** The bot's clock: the real time, or a moment a case holds it at. */
let frozenAt: number | undefined;
/** How many times the calculate tool's code ran. */
let runs = 0;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'threadwise-unreadable-'));
  const keyvUrl = `sqlite://${dir}/bot.sqlite`;
  w = await startModeration({
    keyvUrl,
    now: () => new Date(frozenAt ?? Date.now()),
    toolRuns: {
      calculate: async () => {
        runs++;
        return '42';
      },
    },
  });
  // A second connection to the same file: what another version of the bot would write.
  raw = await openBackend(keyvUrl, dir, { timeouts: DEFAULT_TIMEOUTS, onBackgroundError: () => undefined });
  const made = await command(w.fake, 'tools', sub('approval', { tool: 'calculate', mode: 'ask' }), { userId: w.modId });
  expect(made.content).toMatch(/made calls to `calculate` wait for approval/);
});
afterAll(async () => {
  await raw?.close();
  await w?.h.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** An /ask whose run stops at `calculate`: its approval request, once the record knows where it and the Stop button are. */
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

/** Press a button of a message and read the private answer. */
async function press(message: FakeMessage, label: string): Promise<string> {
  const button = buttonsOf(message).find((b) => b.label === label)!;
  const click = w.fake.clickButton({ messageId: message.id, customId: button.custom_id, channelId: message.channelId });
  return (await replyTo(w.fake, click, 10_000)).content;
}

/** The note the thread gets when its wait could not be read back. */
const unreadableNote = (threadId: string) => w.fake.messagesIn(threadId).find((m) => m.content.startsWith('⚠️ This run was waiting for an approval, but what I saved of it cannot be read back'));

describe('a wait for approval whose saved record cannot be read back', () => {
  it('Approve on a wait whose saved turn is of a version this bot does not know: a note in its thread, the presser told, nothing run', async () => {
    const { fake, h } = w;
    const { request, record } = await waitingAsk('What is 6 times 7, from the future?');
    await h.storage.waitingTurns.update(record.id, (r) => ({ ...r, turn: { ...(r.turn as object), v: 2 } }));
    const requests = w.model.requests.length;

    expect(await press(request, 'Approve')).toMatch(/^This run could not be read back \(it was saved by another version of the bot\), so it has ended without running anything; its thread says so\./);
    const note = unreadableNote(request.channelId);
    expect(note?.content).toContain('it was saved by another version of the bot');
    expect(buttonsOf(fake.message(request.id)!)).toEqual([]);
    expect(await h.storage.waitingTurns.get(record.id)).toBeUndefined();
    expect(runs).toBe(0);
    expect(w.model.requests).toHaveLength(requests);
  });

  it('Stop on a wait whose engine state is damaged: the same note, no crash, nothing kept or run', async () => {
    const { fake, h } = w;
    const { request, record } = await waitingAsk('What is 6 times 7, damaged?');
    await h.storage.waitingTurns.update(record.id, (r) => ({ ...r, state: { v: 1, steps: 'many' } }));
    const log = fake.botMessages(request.channelId).find((m) => buttonsOf(m).some((b) => b.label === 'Stop'))!;

    expect(await press(log, 'Stop')).toMatch(/^This run could not be read back \(it is damaged\)/);
    expect(unreadableNote(request.channelId)?.content).toContain('it is damaged');
    expect(buttonsOf(fake.message(log.id)!)).toEqual([]);
    expect(await h.storage.waitingTurns.get(record.id)).toBeUndefined();
    expect((await h.storage.conversations.load(request.channelId)).messages).toEqual([]);
    expect(runs).toBe(0);
  });

  it('the sweep, past the deadline, ends a record another version wrote (its own version unknown) with a note in its thread', async () => {
    const { h } = w;
    const { request, record } = await waitingAsk('What is 6 times 7, swept?');
    // Written as a later version would: the envelope's own version moved on.
    const key = `threadwise:waiting:${record.id}`;
    const [entry] = await raw.read(key);
    expect(await raw.replace(key, entry!, JSON.stringify({ ...JSON.parse(entry!.raw), v: 2 }))).toBe(true);
    frozenAt = record.expiresAt + 1;

    await h.app.services.turns.sweepWaiting(h.app.bot.client as Client<true>);
    expect(unreadableNote(request.channelId)?.content).toContain('it was saved by another version of the bot');
    expect((await h.storage.waitingTurns.list()).map((e) => e.id)).not.toContain(record.id);
    expect(await raw.read(key)).toEqual([]);
    expect(runs).toBe(0);
    frozenAt = undefined;
  });
});
