/**
 * Every configured MCP server and the tools they offer, as engine tools: `<server>__<tool>`, the
 * server's JSON Schema, a cleaned description, a fingerprint for pinning, off by default (`network`)
 * and waiting for approval unless the server marks the tool read-only. Servers connect in parallel;
 * start-up waits for them only a few seconds, and a slow one joins when it is ready.
 */
import type { ToolDefinition } from '../agent/tool.js';
import { jsonSchemaArguments } from '../agent/tool-arguments.js';
import type { McpServerConfig } from './server-config.js';
import { ServerConnection, type McpLogger, type ServerState } from './server-connection.js';
import { toToolOutput } from './tool-result.js';
import { annotationNotes, modelDescription, modelSchema, modelToolName, textProtocolHints, toolFingerprint, type ListedTool } from './tool-shape.js';

export interface McpServersOptions {
  logger: McpLogger;
  /** Each call's time limit (TOOL_TIMEOUT_MS); the engine enforces it too and cancels the call. */
  callTimeoutMs: number;
  /** How long `start` waits for slow servers before the bot goes on without them (default 5 s). */
  readyWaitMs?: number;
  /** First reconnect wait after a server dies (default 500 ms, doubling to 30 s). */
  backoffMs?: number;
  /** Told of each call's outcome (metrics). */
  onCall?: (server: string, outcome: 'ok' | 'error' | 'unavailable') => void;
  /** Told when the tool list changes (a server joined, left, or changed its tools). */
  onToolsChanged?: () => void;
}

/** A server as `npm run mcp -- list` and `/metrics` show it. */
export interface ServerStatus {
  name: string;
  state: ServerState;
  transport?: string;
  error?: string;
  tools: Array<{ name: string; description: string; notes: string[] }>;
}

export class McpServers {
  private readonly connections: ServerConnection[];
  private current: readonly ToolDefinition[] = [];
  private readonly fingerprints = new Map<string, string>();

  constructor(
    configs: readonly McpServerConfig[],
    private readonly options: McpServersOptions,
  ) {
    this.connections = configs.map((config) => new ServerConnection(config, { logger: options.logger, backoffMs: options.backoffMs, onChange: () => this.rebuild() }));
  }

  /** Connect every server in parallel; resolves when all answered or `readyWaitMs` passed. */
  async start(): Promise<void> {
    if (this.connections.length === 0) return;
    const all = Promise.all(this.connections.map((c) => c.start()));
    let timer: NodeJS.Timeout | undefined;
    const wait = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.readyWaitMs ?? 5_000);
      timer.unref();
    });
    await Promise.race([all, wait]);
    clearTimeout(timer);
    const late = this.connections.filter((c) => c.state !== 'ready').map((c) => c.config.name);
    if (late.length) this.options.logger.warn({ servers: late }, 'MCP servers not ready yet; their tools join when they are');
  }

  /** The tools now: the same array until something changes (the engine re-indexes only then). */
  tools(): readonly ToolDefinition[] {
    return this.current;
  }

  /** The fingerprint of an MCP tool's name, description and schema now; undefined for other tools. */
  fingerprint(toolName: string): string | undefined {
    return this.fingerprints.get(toolName);
  }

  /** Every server with its state and tools. */
  status(): ServerStatus[] {
    return this.connections.map((c) => ({
      name: c.config.name,
      state: c.state,
      transport: c.transport,
      error: c.lastError,
      tools: c.tools.map((t) => ({ name: modelToolName(c.config.name, t.name), description: modelDescription(t), notes: annotationNotes(t) })),
    }));
  }

  /** The official SDK client connected to a server now: the bench's baseline calls it on the same connection. */
  sdkClient(server: string): ServerConnection['sdkClient'] {
    return this.connections.find((c) => c.config.name === server)?.sdkClient;
  }

  /** Disconnect every server (stdio servers' processes end). */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private rebuild(): void {
    const tools: ToolDefinition[] = [];
    const seen = new Set<string>();
    this.fingerprints.clear();
    for (const connection of this.connections) {
      for (const listed of connection.tools) {
        const tool = this.define(connection, listed);
        if (seen.has(tool.name)) continue; // two tools of one server that differ only in characters the API forbids
        seen.add(tool.name);
        tools.push(tool);
        this.fingerprints.set(tool.name, tool.fingerprint!);
      }
    }
    this.current = tools;
    this.options.onToolsChanged?.();
  }

  private define(connection: ServerConnection, listed: ListedTool): ToolDefinition {
    const server = connection.config.name;
    const schema = modelSchema(listed);
    const hints = textProtocolHints(schema);
    const readOnly = listed.annotations?.readOnlyHint === true;
    const onCall = this.options.onCall;
    // The engine stops the call at TOOL_TIMEOUT_MS (aborting the signal, which sends the server
    // `notifications/cancelled`); the SDK's own limit is a little later, for calls made outside a run.
    const timeoutMs = this.options.callTimeoutMs + 1_000;
    return {
      name: modelToolName(server, listed.name),
      description: modelDescription(listed),
      parameters: jsonSchemaArguments(schema),
      inputSchema: schema,
      ...(hints.textParameter ? { textParameter: hints.textParameter } : {}),
      examples: [hints.example],
      network: true,
      askByDefault: !readOnly,
      fingerprint: toolFingerprint(listed),
      provenance: { source: `MCP server \`${server}\` (tool \`${listed.name}\`)`, notes: annotationNotes(listed) },
      async run(args: Record<string, unknown>, ctx) {
        let result;
        try {
          result = await connection.call(listed.name, args, {
            signal: ctx.signal,
            timeoutMs,
            onProgress: ctx.progress ? (p) => ctx.progress!(`${p.progress}${p.total ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}`) : undefined,
          });
        } catch (error) {
          onCall?.(server, connection.state === 'ready' ? 'error' : 'unavailable');
          throw error;
        }
        onCall?.(server, result.isError ? 'error' : 'ok');
        return toToolOutput(result);
      },
    };
  }
}
