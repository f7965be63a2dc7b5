/**
 * Every configured MCP server and the tools they offer, as engine tools: `<server>__<tool>`, the
 * cleaned and capped listing (tool-listing.ts), a fingerprint for pinning, off by default (`network`)
 * and waiting for approval unless the server marks the tool read-only. A tool that cannot be passed on
 * faithfully (a schema past the caps) or whose name collides with another's once made a model name
 * (`dup.a` and `dup_a` both become `srv__dup_a`) is refused, with the reason, in `status()`, and the
 * log says so naming both. Servers connect in parallel; start-up waits for them only a few seconds,
 * and a slow one joins when it is ready.
 */
import type { ToolDefinition, ToolListing } from '../agent/tool.js';
import { jsonSchemaArguments } from '../agent/tool-arguments.js';
import type { Sandbox } from './sandbox.js';
import type { McpServerConfig } from './server-config.js';
import { ServerConnection, type McpLogger, type ServerState } from './server-connection.js';
import { listingFingerprint, presentTool } from './tool-listing.js';
import { toToolOutput } from './tool-result.js';
import { annotationNotes, modelToolName, textProtocolHints } from './tool-shape.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

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
  /** How stdio servers are started (sandbox.ts: bubblewrap, another user, or as they are). */
  sandbox?: Sandbox;
}

/** A server as `npm run mcp -- list` and `/metrics` show it. */
export interface ServerStatus {
  name: string;
  state: ServerState;
  transport?: string;
  error?: string;
  /** The tools offered, with their listing as the model reads it. */
  tools: Array<{ name: string; description: string; notes: string[]; listing: ToolListing }>;
  /** The tools the server lists that the bot does not offer, and why. */
  refused: RefusedTool[];
}

/** A server's tool the bot does not offer, and why (a schema past the caps, a name that collides). */
export interface RefusedTool {
  server: string;
  /** The tool's name on its server. */
  tool: string;
  reason: string;
}

export class McpServers {
  private readonly connections: ServerConnection[];
  private current: readonly ToolDefinition[] = [];
  private readonly fingerprints = new Map<string, string>();
  private refusedNow: RefusedTool[] = [];
  /** Refusals already logged, so a server that lists its tools again is not reported again. */
  private readonly logged = new Set<string>();

  constructor(
    configs: readonly McpServerConfig[],
    private readonly options: McpServersOptions,
  ) {
    this.connections = configs.map((config) => new ServerConnection(config, { logger: options.logger, backoffMs: options.backoffMs, sandbox: options.sandbox, onChange: () => this.rebuild() }));
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
    // A blocked server said why already, and does not join later.
    const late = this.connections.filter((c) => c.state !== 'ready' && c.state !== 'blocked').map((c) => c.config.name);
    if (late.length) this.options.logger.warn({ servers: late }, 'MCP servers not ready yet; their tools join when they are');
  }

  /** The tools now: the same array until something changes (the engine re-indexes only then). */
  tools(): readonly ToolDefinition[] {
    return this.current;
  }

  /** How the stdio servers' processes are kept from the bot's secrets, in one sentence; undefined without servers. */
  protection(): string | undefined {
    if (!this.connections.some((c) => c.config.kind === 'stdio')) return undefined;
    return this.options.sandbox?.describe ?? 'Stdio MCP servers are not sandboxed: they run as the bot\'s user (only their environment is kept apart).';
  }

  /** The servers not started because their sandbox cannot reach them, each with its one-line reason. */
  blocked(): Array<{ server: string; reason: string }> {
    return this.connections.filter((c) => c.state === 'blocked').map((c) => ({ server: c.config.name, reason: c.lastError ?? 'its sandbox cannot reach it' }));
  }

  /** The tools servers list that are not offered, and why. */
  refused(): readonly RefusedTool[] {
    return this.refusedNow;
  }

  /** The fingerprint of an MCP tool's listing now (name, title, description, schema, annotations); undefined for other tools. */
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
      tools: this.current.filter((t) => this.owner.get(t.name) === c).map((t) => ({
        name: t.name,
        description: t.description,
        notes: t.provenance!.notes,
        listing: t.provenance!.listing!,
      })),
      refused: this.refusedNow.filter((r) => r.server === c.config.name),
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

  private readonly owner = new Map<string, ServerConnection>();

  private rebuild(): void {
    const refused: RefusedTool[] = [];
    const byName = new Map<string, Array<{ connection: ServerConnection; listing: ToolListing }>>();
    for (const connection of this.connections) {
      for (const listed of connection.tools) {
        const presented = presentTool(listed);
        if ('refused' in presented) {
          refused.push({ server: connection.config.name, tool: listed.name, reason: presented.refused });
          continue;
        }
        const name = modelToolName(connection.config.name, listed.name);
        byName.set(name, [...(byName.get(name) ?? []), { connection, listing: presented.listing }]);
      }
    }
    const tools: ToolDefinition[] = [];
    this.fingerprints.clear();
    this.owner.clear();
    for (const [name, same] of byName) {
      if (same.length > 1) {
        // Offering one would leave the other unreachable, and which one wins would depend on list order.
        const names = same.map((s) => `\`${codeName(s.listing.tool)}\` (server \`${s.connection.config.name}\`)`).join(' and ');
        for (const s of same) refused.push({ server: s.connection.config.name, tool: s.listing.tool, reason: `${names} both become \`${name}\` for the model; neither is offered until one is renamed` });
        continue;
      }
      const { connection, listing } = same[0]!;
      const tool = this.define(connection, name, listing);
      tools.push(tool);
      this.owner.set(name, connection);
      this.fingerprints.set(name, tool.fingerprint!);
    }
    for (const r of refused) {
      const key = `${r.server}\u0000${r.tool}\u0000${r.reason}`;
      if (this.logged.has(key)) continue;
      this.logged.add(key);
      this.options.logger.warn({ server: r.server, tool: r.tool, reason: r.reason }, `MCP tool refused: ${r.reason}`);
    }
    this.refusedNow = refused;
    this.current = tools;
    this.options.onToolsChanged?.();
  }

  private define(connection: ServerConnection, name: string, listing: ToolListing): ToolDefinition {
    const server = connection.config.name;
    const schema = JSON.parse(listing.schema) as Record<string, unknown>;
    const hints = textProtocolHints(schema);
    const readOnly = listing.annotations.readOnlyHint === true;
    const onCall = this.options.onCall;
    // The engine stops the call at TOOL_TIMEOUT_MS (aborting the signal, which sends the server
    // `notifications/cancelled`); the SDK's own limit is a little later, for calls made outside a run.
    const timeoutMs = this.options.callTimeoutMs + 1_000;
    return {
      name,
      description: listing.description,
      parameters: jsonSchemaArguments(schema),
      inputSchema: schema,
      ...(hints.textParameter ? { textParameter: hints.textParameter } : {}),
      examples: [hints.example],
      network: true,
      askByDefault: !readOnly,
      fingerprint: listingFingerprint(listing),
      provenance: { source: `MCP server \`${server}\` (tool \`${codeName(listing.tool)}\`)`, notes: annotationNotes(listing.annotations), listing },
      async run(args: Record<string, unknown>, ctx) {
        let result;
        try {
          result = await connection.call(listing.tool, args, {
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

/**
 * A server's own name for a tool, to be shown as inline code in a sentence the bot writes: the server
 * chose it, so no backtick, line break or `](` of it survives to close that code or make a link.
 */
export function codeName(name: string): string {
  return name.slice(0, TEXT_CAPS.toolName).replace(/[`\s]/g, '_').replace(/\](?=\()/g, ']_');
}
