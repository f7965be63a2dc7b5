/**
 * What the bot's MCP layer adds to a call, against the in-run baseline of the official SDK's own
 * `callTool` on the same stdio connection to the same server process (the reference server, server-everything):
 * the layer (argument check, result conversion, progress and cancellation wiring) and the engine's
 * tool runner on top (time limit, output cleaning and cap), as a run uses it.
 */
import path from 'node:path';
import { ToolIndex } from '../src/agent/tool-index.js';
import { ToolRunner } from '../src/agent/tool-runner.js';
import { McpServers } from '../src/mcp/index.js';
import { fmt, median, percentile, type BenchSection } from './stats.js';

// From the project's root, so it is found from the sources and from the bench's build alike.
const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const CASES: Array<{ tool: string; args: Record<string, unknown> }> = [
  { tool: 'echo', args: { message: 'hello from the bench' } },
  { tool: 'get-sum', args: { a: 2, b: 40 } },
];

async function timeEach(count: number, call: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call();
    times.push((performance.now() - started) * 1_000);
  }
  return times;
}

/** The MCP bench: median µs per call, direct SDK vs the bot's layer vs the engine's runner over it. */
export async function benchMcp(options: { warmup?: number; calls?: number } = {}): Promise<BenchSection> {
  const warmup = options.warmup ?? 100;
  const calls = options.calls ?? 2_000;
  const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };
  const servers = new McpServers([{ kind: 'stdio', name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} }], { logger: quiet, callTimeoutMs: 15_000, readyWaitMs: 30_000 });
  const rows: BenchSection['rows'] = [];
  try {
    await servers.start();
    const client = servers.sdkClient('everything');
    if (!client) throw new Error('server-everything did not start');
    const tools = servers.tools();
    const runner = new ToolRunner(new ToolIndex(tools), { timeoutMs: 15_000, maxOutputChars: 4_000, context: { fetch, now: () => new Date() }, clock: () => performance.now() });
    const allowed = new Set(tools.map((t) => t.name));
    for (const { tool, args } of CASES) {
      const defined = tools.find((t) => t.name === `everything__${tool}`)!;
      // Each call gets its own signal, as in a run (the runner makes one per call that asks for it).
      const direct = () => client.callTool({ name: tool, arguments: args }, undefined, { signal: new AbortController().signal });
      const layer = () => defined.run(args, { signal: new AbortController().signal, fetch, now: () => new Date() });
      const engine = () => runner.execute(runner.prepare(defined.name, { kind: 'json', text: JSON.stringify(args) }, allowed));
      for (const call of [direct, layer, engine]) await timeEach(warmup, call);
      // One call of each in turn, so machine noise (this machine is shared) hits every side alike.
      const d: number[] = [];
      const l: number[] = [];
      const e: number[] = [];
      for (let i = 0; i < calls; i += 1) {
        d.push(...(await timeEach(1, direct)));
        l.push(...(await timeEach(1, layer)));
        e.push(...(await timeEach(1, engine)));
      }
      rows.push({
        tool: `\`${tool}\``,
        'SDK callTool, median µs': fmt(median(d)),
        'bot MCP layer, median µs': fmt(median(l)),
        'engine runner + layer, median µs': fmt(median(e)),
        'engine p95 µs': fmt(percentile(e, 95)),
        'layer / SDK': `${fmt(median(l) / median(d), 2)}×`,
        'engine / SDK': `${fmt(median(e) / median(d), 2)}×`,
      });
    }
  } finally {
    await servers.close();
  }
  return {
    name: 'MCP tool calls (server-everything over stdio)',
    rows,
    notes: [
      `${calls} calls per column after ${warmup} warm-up calls, taken in turn. Baseline: the official SDK's \`callTool\` on the very connection and server process the bot's layer uses; the layer and the engine's runner each add their work on top of one such call.`,
    ],
  };
}
