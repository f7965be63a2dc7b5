/**
 * Images from an MCP tool within budget, end to end: the whole bot (startApp, vision on) with the real
 * discord.js client against the fake Discord, the test's own stdio server through the real MCP SDK.
 * An image past the 2 MB the thread shows is shown to nobody and the model is told so; an image the
 * thread shows reaches the model scaled down to what it can use, so no later request carries megabytes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { sandboxSettingFor } from '../mcp/helpers/host-sandbox.js';
import { isFinalAnswer } from './harness.js';

const PICTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../mcp/fixtures/picture-server.mjs');
let dir: string;
let file: string;
let w: ModerationWorld | undefined;
const servers = { pictures: { command: process.execPath, args: [PICTURES] } };
// The default sandbox where it reaches this checkout's servers; MCP_SANDBOX=off where it cannot (a checkout
// in a private folder), said in a printed line: test/mcp/helpers/host-sandbox.ts.
const sandbox = sandboxSettingFor('tool-images', servers);
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-pictures-'));
  file = path.join(dir, 'mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: servers }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

/** A request's size as sent, in bytes. */
const bytesOf = (i: number) => Buffer.byteLength(JSON.stringify(w!.model.requests[i]!.body));
const imagesIn = (i: number) => JSON.stringify(w!.model.requests[i]!.body).match(/data:image\/[a-z]+;base64,[A-Za-z0-9+/=]+/g) ?? [];

async function ask(question: string, kind: 'big' | 'photo', channelId?: string) {
  const { fake, model } = w!;
  model.script({ content: 'Drawing.', toolCalls: [{ name: 'pictures__picture', arguments: { kind } }] }, { content: `Here it is (${kind}).` });
  const since = fake.mark();
  if (channelId) fake.sendMessage({ channelId, content: question });
  else fake.sendSlashCommand({ name: 'ask', options: { question } });
  return fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes(`(${kind})`), 30_000, { since });
}

describe('images from tools, within budget', () => {
  it('a 6 MB image is told to the model as not shown and why; a large photo reaches it scaled down; no request carries megabytes', async () => {
    w = await startModeration({ env: { MCP_SERVERS_FILE: file, MODEL_VISION: 'true', ...sandbox }, messageContent: true });
    const { fake, model, modId } = w;
    await command(fake, 'tools', sub('enable', { tool: 'pictures__picture' }), { userId: modId });

    const first = model.requests.length;
    const answer = await ask('Draw the big one', 'big');
    const told = model.requests[first + 1]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)).join('\n');
    expect(told).toMatch(/\[image \(image\/png, 6\.\d MB\): not shown to anyone: it is larger than the 2 MB the bot shows\]/);
    expect(fake.botMessages(answer.channelId).some((m) => m.attachments.length > 0)).toBe(false);
    expect(imagesIn(first + 1)).toEqual([]);

    const second = model.requests.length;
    await ask('Now the photo', 'photo', answer.channelId);
    // People see the original; the model a JPEG no larger than it uses (1152×768 for 3000×2000).
    const shown = fake.botMessages(answer.channelId).find((m) => m.attachments.length > 0)!;
    expect(shown.attachments[0]).toMatchObject({ filename: 'pictures__picture-1.png' });
    const [sent] = imagesIn(second + 1);
    expect(sent).toMatch(/^data:image\/jpeg;base64,/);
    const meta = await sharp(Buffer.from(sent!.split(',')[1]!, 'base64')).metadata();
    expect([meta.width, meta.height]).toEqual([1152, 768]);

    // Every request of the thread stays small, the ones after the images included.
    model.script({ content: 'Still here (after).' });
    const since = fake.mark();
    fake.sendMessage({ channelId: answer.channelId, content: 'Anything else?' });
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('(after)'), 15_000, { since });
    const sizes = model.requests.slice(first).map((_, i) => bytesOf(first + i));
    console.log(`request sizes with a 6 MB image, then a 3000×2000 photo, then a follow-up: ${sizes.map((b) => `${Math.round(b / 1000)} KB`).join(', ')}`);
    for (const size of sizes) expect(size).toBeLessThan(400_000);
  });
});
