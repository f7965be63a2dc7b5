/**
 * Connecting an SDK client to a configured server: a stdio server as a child process whose
 * environment is only its entry's `env` plus the SDK's safe defaults, a remote one over Streamable
 * HTTP, falling back to the older SSE transport when the server only has that.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Sandbox } from './sandbox.js';
import type { McpServerConfig } from './server-config.js';

/** Which transport a server answered on. */
export type TransportKind = 'stdio' | 'streamable-http' | 'sse';

export interface ConnectOptions {
  timeoutMs: number;
  logger: { debug(fields: Record<string, unknown>, message: string): void };
  /** A stdio server's stderr, as it comes (kept to say why it died). */
  onStderr?: (text: string) => void;
  /** How a stdio server is started (sandbox.ts); none: as configured. */
  sandbox?: Sandbox;
}

/** Connect `client` (initialize included) to the server; the transport that answered. */
export async function connectTransport(client: Client, config: McpServerConfig, options: ConnectOptions): Promise<TransportKind> {
  const timeout = options.timeoutMs;
  if (config.kind === 'stdio') {
    // `env` is given, so the SDK starts the process with its safe defaults (PATH, HOME, …) plus exactly
    // these variables, never the bot's own environment (DISCORD_TOKEN, OPENAI_API_KEY, …).
    const started = options.sandbox ? options.sandbox.wrap(config) : config;
    const transport = new StdioClientTransport({ command: started.command, args: started.args, env: started.env, cwd: started.cwd, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => options.onStderr?.(chunk.toString('utf8')));
    await client.connect(transport, { timeout });
    return 'stdio';
  }
  const requestInit = { headers: config.headers };
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(config.url), { requestInit }), { timeout });
    return 'streamable-http';
  } catch (error) {
    // A server that only has the older transport answers the Streamable HTTP POST with 4xx.
    options.logger.debug({ server: config.name, err: error }, 'Streamable HTTP failed; trying the SSE transport');
    await client.connect(new SSEClientTransport(new URL(config.url), { requestInit }), { timeout });
    return 'sse';
  }
}
