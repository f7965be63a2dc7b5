/**
 * Servers that misbehave (the fixture server, written with the official SDK): one that hangs (the call
 * is stopped at its time limit and the server gets the protocol's cancellation), one that crashes
 * (restarted with backoff, its tools "unavailable" meanwhile), one that changes a tool's description
 * (the list is read again and the tool's fingerprint changes), and error results.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/agent/engine.js';
import type { ToolDefinition } from '../../src/agent/tool.js';
import { McpServers } from '../../src/mcp/index.js';
import { drain, ofType } from '../agent/helpers.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { oddServer } from './helpers/servers.js';

const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };
let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

async function start(options: { backoffMs?: number } = {}) {
  servers = new McpServers([oddServer()], { logger: quiet, callTimeoutMs: 5_000, readyWaitMs: 15_000, ...options });
  await servers.start();
  return servers;
}

function find(s: McpServers, name: string): ToolDefinition {
  const tool = s.tools().find((t) => t.name === `odd__${name}`);
  if (!tool) throw new Error(`no odd__${name}`);
  return tool;
}

async function call(s: McpServers, name: string): Promise<string> {
  const out = await find(s, name).run({}, { signal: new AbortController().signal, fetch, now: () => new Date() });
  return typeof out === 'string' ? out : out.output;
}

/** The calls the server saw cancelled, once it has seen one (the notification may still be on its way). */
async function cancelledCalls(s: McpServers): Promise<string[]> {
  let seen: string[] = [];
  const end = Date.now() + 5_000;
  while (seen.length === 0 && Date.now() < end) {
    seen = JSON.parse(await call(s, 'cancelled')) as string[];
    if (seen.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return seen;
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('misbehaving MCP servers', () => {
  it('a hanging call is stopped at the tool time limit, the model is told, and the server gets a cancellation', async () => {
    const s = await start();
    const model = new ScriptedModel().script({ toolCalls: [{ name: 'odd__hang', arguments: {} }] }, { content: 'It did not answer.' });
    const engine = createEngine({ model, tools: [], moreTools: () => s.tools(), defaults: { toolTimeoutMs: 300 } });
    const { events, result } = await drain(engine.run({ messages: [{ role: 'user', content: 'wait' }] }));
    expect(result.answer).toBe('It did not answer.');
    expect(ofType(events, 'observation')[0]).toMatchObject({ tool: 'odd__hang', isError: true });
    expect(ofType(events, 'observation')[0]!.output).toContain('took longer than 300 ms');
    // The server saw `notifications/cancelled` for that request (its handler's signal aborted).
    expect(await cancelledCalls(s)).toHaveLength(1);
  });

  it('Stop cancels a running call on the server too', async () => {
    const s = await start();
    const stop = new AbortController();
    const model = new ScriptedModel().script({ toolCalls: [{ name: 'odd__hang', arguments: {} }] });
    const engine = createEngine({ model, tools: [], moreTools: () => s.tools() });
    const run = engine.run({ messages: [{ role: 'user', content: 'wait' }], signal: stop.signal });
    const events = drain(run, (e) => {
      if (e.type === 'action') setTimeout(() => stop.abort(), 100);
    });
    expect((await events).result.reason).toBe('aborted');
    expect(await cancelledCalls(s)).toHaveLength(1);
  });

  it('a crashed server is restarted with backoff; meanwhile its tools answer "unavailable"', async () => {
    const s = await start({ backoffMs: 1_000 });
    const firstPid = await call(s, 'pid');
    await expect(call(s, 'crash')).rejects.toThrow();
    await until(() => s.status()[0]!.state === 'restarting', 'the restart');
    await expect(call(s, 'pid')).rejects.toThrow(/MCP server "odd" is unavailable right now \(restarting/);
    // The tools stay offered while it restarts, so the model gets that as an observation.
    const model = new ScriptedModel().script({ toolCalls: [{ name: 'odd__pid', arguments: {} }] }, { content: 'Later.' });
    const { events } = await drain(createEngine({ model, tools: [], moreTools: () => s.tools() }).run({ messages: [{ role: 'user', content: 'pid?' }] }));
    expect(ofType(events, 'observation')[0]!.output).toMatch(/unavailable/);
    await until(() => s.status()[0]!.state === 'ready', 'the server to be back');
    const secondPid = await call(s, 'pid');
    expect(secondPid).not.toBe(firstPid);
  });

  it('a server that changes a tool\'s description: the list is read again and the fingerprint changes', async () => {
    const s = await start();
    const before = find(s, 'greet');
    await call(s, 'change-description');
    await until(() => find(s, 'greet').fingerprint !== before.fingerprint, 'the new tool list');
    expect(find(s, 'greet').description).toContain('IMPORTANT');
    expect(find(s, 'greet').name).toBe(before.name);
  });

  it('an error result becomes an error observation with the server\'s text', async () => {
    const s = await start();
    const model = new ScriptedModel().script({ toolCalls: [{ name: 'odd__failing', arguments: {} }] }, { content: 'Down.' });
    const { events } = await drain(createEngine({ model, tools: [], moreTools: () => s.tools() }).run({ messages: [{ role: 'user', content: 'db?' }] }));
    expect(ofType(events, 'observation')[0]).toMatchObject({ isError: true, output: 'Error: the database is down' });
  });

  it('a slow server does not hold start-up past the ready wait; its tools join when it is ready', async () => {
    let changes = 0;
    // The slow one takes 4 s to start; start-up waits 0.5 s. (Whether the fast one made it in 0.5 s
    // depends on the machine's load, so only the slow one's state is asserted here.)
    servers = new McpServers([oddServer('fast'), oddServer('slow', { START_DELAY_MS: '4000' })], { logger: quiet, callTimeoutMs: 5_000, readyWaitMs: 500, onToolsChanged: () => changes++ });
    await servers.start();
    const s = servers;
    expect(s.status()[1]).toMatchObject({ name: 'slow', state: 'connecting' });
    expect(s.tools().some((t) => t.name.startsWith('slow__'))).toBe(false);
    await until(() => s.tools().some((t) => t.name === 'slow__greet') && s.tools().some((t) => t.name === 'fast__greet'), 'both servers\' tools', 15_000);
    expect(changes).toBe(2);
  });

  it('declines a server\'s sampling request: it never gets the bot\'s model', async () => {
    const s = await start();
    expect(await call(s, 'ask-model')).toBe('declined: MCP error -32601: Method not found');
  });

  it('the text protocol: a one-string tool takes plain input, others JSON, with an example in the prompt', async () => {
    const s = await start();
    const model = new ScriptedModel().script(
      { content: 'Thought: greet her.\nAction: odd__greet: Ada\nPAUSE' },
      { content: 'Answer: I greeted Ada.' },
    );
    const { events } = await drain(createEngine({ model, tools: [], moreTools: () => s.tools() }).run({ messages: [{ role: 'user', content: 'Greet Ada' }], protocol: 'text' }));
    expect(model.requests[0]!.messages[0]!.content).toContain('odd__greet: Greets someone.\n  e.g. Action: odd__greet: text');
    expect(ofType(events, 'observation')[0]).toMatchObject({ isError: false, output: 'Hello, Ada!' });
  });

  it('close ends every server', async () => {
    const s = await start();
    const pid = Number(await call(s, 'pid'));
    await s.close();
    servers = undefined;
    await until(() => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the server process to end');
  });
});
