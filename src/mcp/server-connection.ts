/**
 * One MCP server: connecting (stdio, or Streamable HTTP falling back to SSE), listing its tools at
 * start and on `notifications/tools/list_changed`, calling them, and coming back after it dies (with
 * backoff). The client advertises no capabilities, so a server's sampling and elicitation requests
 * are declined: a server never gets our model or our users.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Sandbox } from './sandbox.js';
import type { McpServerConfig } from './server-config.js';
import type { CallResult } from './tool-result.js';
import type { ListedTool } from './tool-listing.js';
import { connectTransport, type TransportKind } from './transports.js';

/**
 * Where a server is: connecting the first time, answering, coming back after a failure, not started
 * because its sandbox cannot reach it (`lastError` says why; tried again only when the bot restarts), or closed.
 */
export type ServerState = 'connecting' | 'ready' | 'restarting' | 'blocked' | 'closed';

/** Every state, for the metrics that show one series per state. */
export const SERVER_STATES: readonly ServerState[] = ['connecting', 'ready', 'restarting', 'blocked', 'closed'];

/** Where connections are logged: pino's logger fits, and so does a terminal's stderr printer. */
export interface McpLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
}

export interface ConnectionOptions {
  logger: McpLogger;
  /** Told whenever the server's tool list (or its state) changes. */
  onChange: () => void;
  /** First wait before reconnecting; doubles up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long connecting and listing may take. */
  connectTimeoutMs?: number;
  /** The client name servers see. */
  clientName?: string;
  /** How stdio servers are started (sandbox.ts). */
  sandbox?: Sandbox;
}

/** A call's options: cancelled through `signal` (the server gets `notifications/cancelled`). */
export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export class ServerConnection {
  state: ServerState = 'connecting';
  /** The tools as last listed (kept while restarting, so they can answer "unavailable"). */
  tools: ListedTool[] = [];
  /** Why the last connection attempt or the connection failed. */
  lastError?: string;
  /** Which transport answered (HTTP servers: `streamable-http` or `sse`). */
  transport?: TransportKind;
  private client?: Client;
  private failures = 0;
  private timer?: NodeJS.Timeout;
  private closing = false;
  private stderrTail = '';

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {}

  /**
   * Connect and list the tools; on failure, retry with backoff in the background. A stdio server its
   * sandbox cannot reach is not started: said once, in one line, and not retried (a folder's mode does
   * not change by waiting). Never rejects.
   */
  async start(): Promise<void> {
    const blocked = this.config.kind === 'stdio' ? this.options.sandbox?.blocker(this.config) : undefined;
    if (blocked) return this.block(blocked);
    try {
      await this.connect();
    } catch (error) {
      this.failed(error);
    }
  }

  /** Call a tool by its server-side name. Throws when the server is not answering now. */
  async call(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallResult> {
    const client = this.client;
    if (this.state !== 'ready' || !client) {
      const why = this.state === 'closed' ? 'shut down' : this.state === 'blocked' ? `not started: ${this.lastError}` : `${this.state === 'connecting' ? 'still starting' : 'restarting'}${this.lastError ? ` after: ${this.lastError}` : ''}`;
      throw new Error(`the MCP server "${this.config.name}" is unavailable right now (${why}); try again later or answer without it.`);
    }
    try {
      return (await client.callTool({ name, arguments: args }, undefined, {
        signal: options.signal,
        timeout: options.timeoutMs,
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      })) as CallResult;
    } catch (error) {
      // A remote server that restarted forgets our session (404) or cannot be reached: connect again.
      // Errors the server answered with (McpError) and our own cancellations leave the connection be.
      if (this.config.kind === 'http' && !(error instanceof McpError) && !options.signal.aborted) this.lost(client, error);
      throw error;
    }
  }

  /** The SDK client while connected (the bench calls it directly as its baseline). */
  get sdkClient(): Client | undefined {
    return this.client;
  }

  /** Disconnect for good (shutdown): a stdio server's process is ended. */
  async close(): Promise<void> {
    this.closing = true;
    this.state = 'closed';
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ name: this.options.clientName ?? 'threadwise', version: '0.1.0' }, { capabilities: {} });
    try {
      await this.open(client);
    } catch (error) {
      if (this.client === client) this.client = undefined;
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  private async open(client: Client): Promise<void> {
    this.transport = await connectTransport(client, this.config, {
      timeoutMs: this.options.connectTimeoutMs ?? 20_000,
      logger: this.options.logger,
      sandbox: this.options.sandbox,
      onStderr: (text) => (this.stderrTail = `${this.stderrTail}${text}`.slice(-500)),
    });
    if (this.closing) {
      await client.close();
      return;
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refresh(client));
    client.onclose = () => this.lost(client);
    this.client = client;
    await this.list(client);
    this.failures = 0;
    this.state = 'ready';
    this.lastError = undefined;
    this.options.logger.info({ server: this.config.name, transport: this.transport, tools: this.tools.length }, 'MCP server connected');
    this.options.onChange();
  }

  private async list(client: Client): Promise<void> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...(page.tools as ListedTool[]));
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1_000);
    this.tools = tools;
  }

  private async refresh(client: Client): Promise<void> {
    try {
      await this.list(client);
      this.options.logger.info({ server: this.config.name, tools: this.tools.length }, 'MCP server changed its tools');
      this.options.onChange();
    } catch (error) {
      this.options.logger.warn({ server: this.config.name, err: error }, 'could not list the MCP server\'s tools after it said they changed');
    }
  }

  /** The connection ended without our asking: the server died, hung up, or (remote) lost our session. */
  private lost(client: Client, cause?: unknown): void {
    if (this.closing || client !== this.client) return;
    this.client = undefined;
    void client.close().catch(() => undefined);
    const why = cause instanceof Error ? `the connection failed (${cause.message})` : 'the connection closed';
    this.failed(new Error(`${why}${this.stderrTail.trim() ? ` (its last output: ${this.stderrTail.trim().slice(-200)})` : ''}`));
  }

  private block(why: string): void {
    if (this.closing) return;
    const had = this.tools.length > 0;
    this.state = 'blocked';
    this.lastError = why;
    this.tools = [];
    this.options.logger.warn({ server: this.config.name, sandbox: this.options.sandbox?.kind }, why);
    if (had) this.options.onChange();
  }

  private failed(error: unknown): void {
    if (this.closing) return;
    this.failures++;
    this.lastError = error instanceof Error ? error.message : String(error);
    const wasReady = this.state === 'ready';
    if (this.state !== 'connecting' || this.tools.length > 0) this.state = 'restarting';
    const delay = Math.min((this.options.backoffMs ?? 500) * 2 ** (this.failures - 1), this.options.maxBackoffMs ?? 30_000);
    this.options.logger.warn({ server: this.config.name, err: this.lastError, retryInMs: delay }, 'MCP server unavailable; reconnecting');
    if (wasReady) this.options.onChange();
    this.timer = setTimeout(() => void this.start(), delay);
    this.timer.unref();
  }
}
