/**
 * What the feedback end-to-end test does as members: read an answer's buttons, press 👍 or 👎 (and fill
 * in the 👎's form), ask, and wait for a vote to land in storage. Over a world the test may replace (a
 * restart starts a second app on the same storage), so each helper reads it when called.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { evalEnv, modelServer } from '../eval/helpers.js';
import type { FakeInteraction, FakeMessage } from '../fake-discord/index.js';
import type { FakeOpenAIServer, ScriptedReply } from '../fakes/openai-server.js';
import { runScript, type ScriptResult } from '../fakes/run-script.js';
import { tempDir } from '../state/helpers/targets.js';
import { replyTo, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer } from './harness.js';
import { sleep } from './waiting.js';

export type Button = { type: number; style: number; custom_id: string; label?: string; emoji?: { name: string } };

export const rows = (m: FakeMessage) => m.components as Array<{ components: Button[] }>;
export const buttons = (m: FakeMessage) => rows(m).flatMap((r) => r.components);
/** The turn an answer's 👍 is for (`rate:<turn id>:up`). */
export const turnOf = (m: FakeMessage) => /^rate:([^:]+):up$/.exec(buttons(m).find((b) => b.emoji?.name === '👍')?.custom_id ?? '')?.[1] ?? '';

/** Poll until `check` holds (a vote written behind a form has no reply to wait for). */
export async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The members' actions in the world `world()` returns now. */
export function members(world: () => ModerationWorld) {
  const press = (m: FakeMessage, emoji: '👍' | '👎', userId: string): FakeInteraction => {
    const button = buttons(m).find((b) => b.emoji?.name === emoji)!;
    return world().fake.clickButton({ messageId: m.id, customId: button.custom_id, channelId: m.channelId, userId });
  };
  return {
    press,
    /** The record of answer `id`, as the storage has it. */
    record: (id: string) => world().h.storage.feedback.get(world().guildId, id),
    /** `/ask` as `userId` in `channelId`; the finished answer. */
    async ask(question: string, by: { userId?: string; channelId?: string } = {}): Promise<FakeMessage> {
      const { fake } = world();
      const since = fake.mark();
      fake.sendSlashCommand({ name: 'ask', options: { question }, ...by });
      return fake.waitForMessage(isFinalAnswer, 15_000, { since });
    },
    /** 👎 pressed: the form it opened, then submitted with `reason`; the private reply. */
    async thumbsDown(m: FakeMessage, userId: string, reason: string, skipLengthChecks = false): Promise<FakeMessage> {
      const { fake } = world();
      const pressed = press(m, '👎', userId);
      await fake.waitForCallback(pressed.id);
      expect(pressed.ackType).toBe(9);
      return replyTo(fake, fake.submitModal({ interactionId: pressed.id, values: { reason }, skipLengthChecks }));
    },
  };
}

/**
 * The real `npm run eval` (its CLI, in a process of its own) on an exported suite, against a local model
 * server listing `model` and answering each request with `answer`: what it printed and its JSON report.
 */
export async function evalExport(name: string, body: string, model: string, answer: (question: string, system: string) => ScriptedReply): Promise<ScriptResult & { server: FakeOpenAIServer; report: any }> {
  const server = await modelServer([model], (_model, question, request) => answer(question, String(request.body.messages[0]?.content ?? '')));
  const dir = tempDir('feedback-eval');
  const suite = path.join(dir, name);
  fs.writeFileSync(suite, body);
  const out = path.join(dir, 'out.md');
  const run = await runScript('src/cli/eval.ts', [suite, '--report', out, '--concurrency', '1'], evalEnv(server, { OPENAI_MODEL: model }));
  const json = path.join(dir, 'out.json');
  return { ...run, server, report: fs.existsSync(json) ? JSON.parse(fs.readFileSync(json, 'utf8')) : undefined };
}
