/**
 * The bot's MCP layer against the official reference server, `@modelcontextprotocol/server-everything`,
 * over stdio and over Streamable HTTP: its tools as the model is offered them, and calls through the
 * engine (echo, sum, the environment, a long call with progress, an image, a tool not marked read-only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/agent/engine.js';
import { McpServers, TOOL_NAME_PATTERN, type McpServerConfig } from '../../src/mcp/index.js';
import { drain, ofType } from '../agent/helpers.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { everythingStdio, startEverythingHttp } from './helpers/servers.js';

const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };

let http: Awaited<ReturnType<typeof startEverythingHttp>>;
beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(async () => {
  await http?.close();
});

describe.each([
  ['stdio', () => everythingStdio('everything', { GREETING: 'hi' })],
  ['Streamable HTTP', (): McpServerConfig => ({ kind: 'http', name: 'everything', url: http.url, headers: {} })],
])('server-everything over %s', (transport, config) => {
  let servers: McpServers;
  beforeAll(async () => {
    servers = new McpServers([config()], { logger: quiet, callTimeoutMs: 10_000, readyWaitMs: 15_000 });
    await servers.start();
  });
  afterAll(async () => {
    await servers?.close();
  });

  const tool = (name: string) => {
    const found = servers.tools().find((t) => t.name === `everything__${name}`);
    if (!found) throw new Error(`no everything__${name} among ${servers.tools().map((t) => t.name).join(', ')}`);
    return found;
  };
  const run = async (name: string, args: Record<string, unknown>, progress?: (text: string) => void) =>
    tool(name).run(args, { signal: new AbortController().signal, fetch, now: () => new Date(), progress });

  it('offers its tools as <server>__<tool>, in the API\'s name pattern, with the server\'s JSON Schema', () => {
    expect(servers.status()[0]).toMatchObject({ state: 'ready', transport: transport === 'stdio' ? 'stdio' : 'streamable-http' });
    const names = servers.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__get-env', 'everything__trigger-long-running-operation', 'everything__get-tiny-image', 'everything__toggle-simulated-logging']));
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    // The client advertises neither sampling nor elicitation, so the server offers no tools that need them.
    expect(names.filter((n) => /sampling|elicitation/.test(n))).toEqual([]);
    expect(tool('get-sum').inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
  });

  it('is off by default, and waits for approval unless the server marks the tool read-only', () => {
    for (const t of servers.tools()) expect(t.network).toBe(true);
    expect(tool('echo').askByDefault).toBe(false);
    expect(tool('toggle-simulated-logging').askByDefault).toBe(true);
    expect(tool('toggle-simulated-logging').provenance?.notes).toContain('may change things (not marked read-only)');
  });

  it('echoes and sums through the engine, the result going back to the model', async () => {
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'everything__get-sum', arguments: { a: 2, b: 40 } }, { name: 'everything__echo', arguments: { message: 'ping' } }] },
      { content: 'It is 42.' },
    );
    const engine = createEngine({ model, tools: [], moreTools: () => servers.tools() });
    const { events, result } = await drain(engine.run({ messages: [{ role: 'user', content: 'sum?' }] }));
    expect(result.answer).toBe('It is 42.');
    const offered = model.requests[0]!.tools!.map((t) => t.function.name);
    expect(offered).toContain('everything__get-sum');
    const observations = ofType(events, 'observation');
    expect(observations[0]).toMatchObject({ tool: 'everything__get-sum', isError: false });
    expect(observations[0]!.output).toContain('42');
    expect(observations[1]!.output).toContain('ping');
    const toolMessages = model.requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.content).join('\n')).toContain('42');
  });

  it('refuses arguments missing a required property before calling the server', async () => {
    const model = new ScriptedModel().script({ toolCalls: [{ name: 'everything__get-sum', arguments: { a: 2 } }] }, { content: 'ok' });
    const engine = createEngine({ model, tools: [], moreTools: () => servers.tools() });
    const { events } = await drain(engine.run({ messages: [{ role: 'user', content: 'sum?' }] }));
    expect(ofType(events, 'observation')[0]).toMatchObject({ isError: true });
    expect(ofType(events, 'observation')[0]!.output).toContain('b: required');
  });

  it('reports the progress of a long call, then its result', async () => {
    const progress: string[] = [];
    const out = await run('trigger-long-running-operation', { duration: 0.6, steps: 3 }, (text) => progress.push(text));
    // The last notification and the result can cross on the wire; the SDK drops progress after the result.
    expect(progress.slice(0, 2)).toEqual(['1/3', '2/3']);
    expect(JSON.stringify(out)).toContain('Long running operation completed');
  });

  it('hands back images beside the text, and tells the model one is there', async () => {
    const out = await run('get-tiny-image', {});
    if (typeof out === 'string') throw new Error('expected an output object');
    expect(out.images?.[0]?.mimeType).toBe('image/png');
    expect(Buffer.from(out.images![0]!.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(out.output).toContain('[image (image/png');
  });

  it('shows the image to a vision model after the tool results, and not to another model', async () => {
    for (const vision of [true, false]) {
      const model = new ScriptedModel('vision-model').script({ toolCalls: [{ name: 'everything__get-tiny-image', arguments: {} }] }, { content: 'A logo.' });
      const engine = createEngine({ model, tools: [], moreTools: () => servers.tools(), toolImages: (name) => vision && name === 'vision-model' });
      await drain(engine.run({ messages: [{ role: 'user', content: 'Show me' }] }));
      const last = model.requests[1]!.messages.at(-1)!;
      if (vision) {
        expect(last.role).toBe('user');
        expect(last.content).toEqual([
          { type: 'text', text: 'Image returned by everything__get-tiny-image:' },
          // Scaled for the model (a small image stays its size) and written as a JPEG.
          { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/jpeg;base64,\/9j\//) } },
        ]);
      } else {
        expect(last.role).toBe('tool');
      }
    }
  });

  it('gives structured content as JSON (once, when the text already holds it) and resource links as links', async () => {
    const weather = await run('get-structured-content', { location: 'New York' });
    const text = typeof weather === 'string' ? weather : weather.output;
    expect(JSON.parse(text)).toEqual({ temperature: 33, conditions: 'Cloudy', humidity: 82 });
    const links = await run('get-resource-links', { count: 2 });
    expect(typeof links === 'string' ? links : links.output).toMatch(/^Here are 2 resource links[^\n]*\nLink: Blob Resource 1 <demo:\/\/resource\/dynamic\/blob\/1> \(.+\)\nLink: Text Resource 2 <demo:\/\/resource\/dynamic\/text\/2>/);
  });

  it('calls a tool that is not marked read-only (toggle-simulated-logging)', async () => {
    const out = await run('toggle-simulated-logging', {});
    expect(JSON.stringify(out)).toMatch(/Started simulated/);
    await run('toggle-simulated-logging', {});
  });

  it('runs get-env', async () => {
    const out = await run('get-env', {});
    expect(JSON.stringify(out)).toContain('PATH');
  });
});

describe('a remote server with only the older SSE transport', () => {
  it('is reached through the SSE fallback', async () => {
    const sse = await startEverythingHttp(undefined, 'sse');
    const servers = new McpServers([{ kind: 'http', name: 'old', url: sse.url, headers: {} }], { logger: quiet, callTimeoutMs: 5_000, readyWaitMs: 15_000 });
    try {
      await servers.start();
      expect(servers.status()[0]).toMatchObject({ state: 'ready', transport: 'sse' });
      const out = await servers.tools().find((t) => t.name === 'old__get-sum')!.run({ a: 1, b: 2 }, { signal: new AbortController().signal, fetch, now: () => new Date() });
      expect(JSON.stringify(out)).toContain('3');
    } finally {
      await servers.close();
      await sse.close();
    }
  });
});

describe('a remote server that restarts', () => {
  it('is connected again (a new session), its tools answering "unavailable" meanwhile', async () => {
    const own = await startEverythingHttp();
    let restarted: Awaited<ReturnType<typeof startEverythingHttp>> | undefined;
    const servers = new McpServers([{ kind: 'http', name: 'remote', url: own.url, headers: {} }], { logger: quiet, callTimeoutMs: 5_000, readyWaitMs: 15_000, backoffMs: 200 });
    const echo = (message: string) => servers.tools().find((t) => t.name === 'remote__echo')!.run({ message }, { signal: new AbortController().signal, fetch, now: () => new Date() });
    try {
      await servers.start();
      expect(JSON.stringify(await echo('one'))).toContain('Echo: one');
      await own.close();
      await expect(echo('two')).rejects.toThrow();
      expect(servers.status()[0]!.state).toBe('restarting');
      await expect(echo('three')).rejects.toThrow(/MCP server "remote" is unavailable right now/);
      restarted = await startEverythingHttp(own.port);
      const end = Date.now() + 15_000;
      while (servers.status()[0]!.state !== 'ready' && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(JSON.stringify(await echo('four'))).toContain('Echo: four');
    } finally {
      await servers.close();
      await restarted?.close();
    }
  });
});

describe('a stdio server\'s environment', () => {
  it('holds its entry\'s variables and the SDK\'s safe defaults, never the bot\'s secrets', async () => {
    const saved = { token: process.env.DISCORD_TOKEN, key: process.env.OPENAI_API_KEY };
    process.env.DISCORD_TOKEN = 'bot-token-must-not-leak';
    process.env.OPENAI_API_KEY = 'sk-must-not-leak';
    const servers = new McpServers([everythingStdio('everything', { GREETING: 'hi' })], { logger: quiet, callTimeoutMs: 10_000, readyWaitMs: 15_000 });
    try {
      await servers.start();
      const out = await servers.tools().find((t) => t.name === 'everything__get-env')!.run({}, { signal: new AbortController().signal, fetch, now: () => new Date() });
      const env = JSON.parse(typeof out === 'string' ? out : out.output) as Record<string, string>;
      expect(env.GREETING).toBe('hi');
      expect(env.PATH).toBeTruthy();
      expect(JSON.stringify(env)).not.toContain('must-not-leak');
      expect(Object.keys(env).filter((k) => !['GREETING', 'HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'].includes(k))).toEqual([]);
    } finally {
      await servers.close();
      process.env.DISCORD_TOKEN = saved.token;
      process.env.OPENAI_API_KEY = saved.key;
      if (saved.token === undefined) delete process.env.DISCORD_TOKEN;
      if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
    }
  });
});
