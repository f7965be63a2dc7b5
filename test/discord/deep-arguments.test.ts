/**
 * Arguments a model nests 5,000 deep (where `JSON.stringify` runs out of stack) reach every view of a
 * call: the step log's line, the approval request, the audit trail, the trace. The whole bot (startApp)
 * with the real discord.js client against the fake Discord, the reference MCP server over stdio, and
 * the production defaults: the turn must still end in the thread with an answer.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { sandboxSettingFor } from '../mcp/helpers/host-sandbox.js';
import { EVERYTHING } from '../mcp/helpers/servers.js';
import { isFinalAnswer } from './harness.js';

let dir: string;
let file: string;
let w: ModerationWorld | undefined;
const servers = { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } };
// The default sandbox where it reaches this checkout's servers; MCP_SANDBOX=off where it cannot (a checkout
// in a private folder), said in a printed line: test/mcp/helpers/host-sandbox.ts.
const sandbox = sandboxSettingFor('deep-arguments', servers);
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-deep-'));
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

/** `{"a":{"a":…1…}}`, `depth` levels: valid JSON that JSON.parse reads and JSON.stringify cannot write back. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('deeply nested tool arguments', () => {
  it('a call whose arguments nest 5,000 deep still ends in an answer in the thread, its step line cut short', async () => {
    w = await startModeration({ env: { MCP_SERVERS_FILE: file, ...sandbox } });
    const { fake, model, modId } = w;
    await command(fake, 'tools', sub('enable', { tool: 'everything__get-sum' }), { userId: modId });
    await command(fake, 'tools', sub('approval', { tool: 'everything__get-sum', mode: 'ask' }), { userId: modId });
    model.script(
      { content: 'Adding.', toolCalls: [{ name: 'everything__get-sum', arguments: `{"a":${nested(5_000)},"b":2}` }] },
      { content: 'The server could not add those.' },
    );
    const since = fake.mark();
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Add these' } });
    // The approval request describes the call too: approve it so the call runs.
    const request = await fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**') && m.components.length > 0, 15_000, { since });
    const approve = (request.components[0] as { components: Array<{ label: string; custom_id: string }> }).components.find((b) => b.label === 'Approve')!;
    fake.clickButton({ messageId: request.id, customId: approve.custom_id, channelId: request.channelId });
    const answer = await fake.waitForMessage(isFinalAnswer, 20_000, { since });
    expect(answer.content).toContain('The server could not add those.');
    const thread = fake.botMessages(answer.channelId);
    for (const m of thread) expect(m.content.length).toBeLessThanOrEqual(2_000);
    const line = thread.map((m) => m.content).join('\n').split('\n').find((l) => l.startsWith('🔧'))!;
    // Twenty levels shown, the rest `…`, and the call's other argument still there.
    expect(line).toMatch(/^🔧 `everything__get-sum\(\{"a":\{"a":\{"a":.*…\}+,"b":2\}\)`$/);
    expect(request.content.length).toBeLessThanOrEqual(2_000);
  });
});
