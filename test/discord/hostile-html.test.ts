/**
 * One hostile HTML file or page must not freeze the bot for everyone: 90,000 nested `<div>`s (about
 * 1 MB) took Readability some 8 s on the bot's main thread, and another member's `/help` went
 * unacknowledged past Discord's 3 seconds. Here the same shape arrives through `/kb add file:` and
 * through `read_url` (a page served on 127.0.0.1), while another member runs `/help` back to back the
 * whole time: every one is acknowledged within 3 s, and the file or page is then read, with a note
 * saying why it was read as plain text. The real bot (production defaults) against the fake Discord.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeInteraction } from '../fake-discord/index.js';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { DEEP_PAGE, DEEPEST } from '../tools/fixtures/hostile-pages.js';
import { startLocalServer, type LocalServer } from '../tools/helpers/local-server.js';
import { isFinalAnswer } from './harness.js';

let w: ModerationWorld;
let web: LocalServer;
let memberId: string;

beforeAll(async () => {
  web = await startLocalServer({ '/deep': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(DEEP_PAGE) });
  w = await startModeration({ allowLoopbackUrls: true });
  memberId = w.fake.addUser({ username: 'member' }).id;
  w.fake.addMember({ userId: memberId });
}, 30_000);
afterAll(async () => {
  await w?.h.close();
  await web?.close();
});

/**
 * Another member's `/help`, one after another (each sent as the last is acknowledged) until `done`
 * settles; the latency of every first callback, in milliseconds. There is always one `/help` waiting
 * for the bot, so a main thread stalled at any moment shows as one late acknowledgement.
 */
async function helpThroughout(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  const latencies: number[] = [];
  while (!finished) {
    const help: FakeInteraction = w.fake.sendSlashCommand({ name: 'help', userId: memberId });
    // Generous: a frozen bot must show as a late acknowledgement, not as a wait that gave up.
    const callback = await w.fake.waitForCallback(help.id, 30_000);
    latencies.push(callback.latencyMs);
  }
  return latencies;
}

describe('hostile HTML while others use the bot', () => {
  it('/kb add of a 90,000-deep HTML file: every /help meanwhile is acknowledged within 3 s, and the file is indexed as plain text with the reason', async () => {
    const interaction = w.fake.sendSlashCommand({
      name: 'kb', subcommand: 'add', userId: w.modId,
      options: { file: { filename: 'deep.html', data: Buffer.from(DEEP_PAGE), contentType: 'text/html' } },
    });
    const reply = w.fake.waitForMessage((m) => m.interactionId === interaction.id && /^(✅|❌)/.test(m.content), 60_000);
    const latencies = await helpThroughout(reply);
    expect(latencies.length).toBeGreaterThan(0);
    expect(latencies.filter((ms) => ms >= 3_000)).toEqual([]);
    const added = await reply;
    expect(added.content).toMatch(/^✅ Added \*\*Deep\*\* \(#\d+\): 1 passage/);
    // 90,000 `<div>`s inside `<html>` and `<body>`.
    expect(added.content).toContain('\n-# ⚠️ Read as plain text, not by its article: its markup nests 90,002 levels deep (an article is looked for up to 512).');
    const hits = await w.h.app.knowledge!.services.base.search(w.guildId, 'lighthouse keeper bell');
    expect(hits[0]?.text).toBe(DEEPEST);
  }, 90_000);

  it('read_url of a 90,000-deep page: every /help meanwhile is acknowledged within 3 s, and the model reads its text and why it came as plain text', async () => {
    await command(w.fake, 'tools', sub('enable', { tool: 'read_url' }), { userId: w.modId });
    const url = `${web.origin}/deep`;
    w.model.script(
      { content: 'Opening the page.', toolCalls: [{ name: 'read_url', arguments: { url } }] },
      { content: 'The keeper rings the bell at dusk.' },
    );
    const before = w.model.requests.length;
    const since = w.fake.mark();
    w.fake.sendSlashCommand({ name: 'ask', options: { question: `What does ${url} say?` } });
    const answer = w.fake.waitForMessage(isFinalAnswer, 60_000, { since });
    const latencies = await helpThroughout(answer);
    expect(latencies.filter((ms) => ms >= 3_000)).toEqual([]);
    expect((await answer).content).toContain('The keeper rings the bell at dusk.');
    const observation = String(w.model.requests[before + 1]!.body.messages.find((m) => m.role === 'tool')!.content);
    expect(observation).toContain(`Title: Deep\nURL: ${url}\n\n${DEEPEST}`);
    expect(observation).toContain('[read as plain text, not by its article: its markup nests 90,002 levels deep (an article is looked for up to 512)]');
  }, 90_000);
});
