/**
 * The gateway side (v10, JSON, no compression): HELLO, IDENTIFY → READY, heartbeat ACKs, RESUME with
 * replay, close codes for bad tokens, intents and payloads, and dispatches filtered by intents and
 * by shard the way Discord routes a guild's events to exactly one shard.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocket, type WebSocketServer } from 'ws';

/** Gateway intent bits the fake filters on. */
export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildPresences: 1 << 8,
  GuildMessages: 1 << 9,
  GuildMessageTyping: 1 << 11,
  DirectMessages: 1 << 12,
  MessageContent: 1 << 15,
} as const;

export interface GatewaySession {
  id: string;
  socket: WebSocket | null;
  intents: number;
  shard: [number, number];
  seq: number;
  /** Sent frames kept for RESUME replay. */
  buffer: Array<{ s: number; t: string; d: unknown }>;
  /** False once the session can no longer be resumed (closed with 1000/1001, or the fake closed). */
  resumable: boolean;
  identify: Record<string, unknown>;
  /** Date.now() when the IDENTIFY arrived. */
  identifiedAt: number;
}

export interface GatewayOptions {
  token: () => string;
  heartbeatIntervalMs: number;
  privileged: { guildMembers: boolean; presences: boolean; messageContent: boolean };
  /** Sends READY and the GUILD_CREATEs for a freshly identified session. */
  onIdentified: (session: GatewaySession) => void;
  onResumed: (session: GatewaySession) => void;
  onClosed: (session: GatewaySession, code: number) => void;
  onRequestMembers: (session: GatewaySession, d: Record<string, unknown>) => void;
  log: (line: string) => void;
}

export type Payload = unknown | ((session: GatewaySession) => unknown);

const BUFFER_LIMIT = 1000;

export class Gateway {
  readonly sessions = new Map<string, GatewaySession>();
  #count = 0;

  constructor(private readonly wss: WebSocketServer, private readonly options: GatewayOptions) {
    wss.on('connection', (ws, req) => this.onConnection(ws, req));
  }

  /** Sessions that have identified and still have an open socket. */
  liveSessions(): GatewaySession[] {
    return [...this.sessions.values()].filter((s) => s.socket?.readyState === WebSocket.OPEN);
  }

  /**
   * Dispatch to every session that should get the event; returns how many got it. A guild's events go
   * to its shard; "Gateway events that do not contain a guild_id will only be sent to the first shard"
   * (gateway.mdx, Sharding), so no `guildId` means shard 0.
   */
  dispatch(t: string, payload: Payload, scope: { guildId?: string; intent?: number } = {}): number {
    let sent = 0;
    for (const session of this.sessions.values()) {
      if (!session.resumable) continue;
      if (scope.intent !== undefined && (session.intents & scope.intent) === 0) continue;
      const shard = scope.guildId === undefined ? 0 : shardOf(scope.guildId, session.shard[1]);
      if (shard !== session.shard[0]) continue;
      const d = typeof payload === 'function' ? (payload as (s: GatewaySession) => unknown)(session) : payload;
      if (d === undefined) continue;
      this.sendTo(session, t, d);
      sent += 1;
    }
    return sent;
  }

  sendTo(session: GatewaySession, t: string, d: unknown): void {
    session.seq += 1;
    const frame = { s: session.seq, t, d };
    session.buffer.push(frame);
    if (session.buffer.length > BUFFER_LIMIT) session.buffer.shift();
    if (session.socket?.readyState === WebSocket.OPEN) session.socket.send(JSON.stringify({ op: 0, ...frame }));
  }

  /** Drops every connection with a resumable close code; clients reconnect and RESUME. */
  disconnect(code = 4000): void {
    for (const ws of this.wss.clients) ws.close(code, 'fake-discord: connection dropped');
  }

  /**
   * Ends every session. Sockets still open are closed with 4004, a code after which discord.js does
   * not reconnect, so a client left running does not retry against a closed fake forever.
   */
  close(): void {
    for (const session of this.sessions.values()) session.resumable = false;
    for (const ws of this.wss.clients) ws.close(4004, 'fake-discord closed');
  }

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    if (query.get('v') !== '10') return ws.close(4012, 'Invalid API version');
    if ((query.get('encoding') ?? 'json') !== 'json') return ws.close(4002, 'Error while decoding payload.');
    let session: GatewaySession | null = null;
    ws.send(JSON.stringify({ op: 10, s: null, t: null, d: { heartbeat_interval: this.options.heartbeatIntervalMs, _trace: ['["fake-discord-gateway"]'] } }));
    ws.on('message', (data) => {
      let msg: { op?: number; d?: unknown };
      try {
        msg = JSON.parse(String(data)) as { op?: number; d?: unknown };
      } catch {
        return ws.close(4002, 'Error while decoding payload.');
      }
      const d = (msg.d ?? {}) as Record<string, unknown>;
      switch (msg.op) {
        case 1:
          return ws.send(JSON.stringify({ op: 11, s: null, t: null, d: null }));
        case 2:
          if (session) return ws.close(4005, 'Already authenticated.');
          session = this.identify(ws, d);
          return;
        case 6:
          if (session) return ws.close(4005, 'Already authenticated.');
          session = this.resume(ws, d);
          return;
        case 3:
        case 4:
          return;
        case 8:
          if (!session) return ws.close(4003, 'Not authenticated.');
          return this.options.onRequestMembers(session, d);
        default:
          return ws.close(4001, 'Unknown opcode.');
      }
    });
    ws.on('close', (code) => {
      if (!session || session.socket !== ws) return;
      session.socket = null;
      if (code === 1000 || code === 1001) session.resumable = false;
      this.options.onClosed(session, code);
    });
  }

  private identify(ws: WebSocket, d: Record<string, unknown>): GatewaySession | null {
    if (d.token !== this.options.token()) {
      ws.close(4004, 'Authentication failed.');
      return null;
    }
    if (typeof d.intents !== 'number') {
      ws.close(4013, 'Invalid intent(s).');
      return null;
    }
    const p = this.options.privileged;
    const disallowed = ((d.intents & Intent.GuildMembers) !== 0 && !p.guildMembers)
      || ((d.intents & Intent.GuildPresences) !== 0 && !p.presences)
      || ((d.intents & Intent.MessageContent) !== 0 && !p.messageContent);
    if (disallowed) {
      ws.close(4014, 'Disallowed intent(s).');
      return null;
    }
    const shard = (Array.isArray(d.shard) ? d.shard : [0, 1]) as [number, number];
    if (shard[0] >= shard[1]) {
      ws.close(4010, 'Invalid shard.');
      return null;
    }
    this.#count += 1;
    const session: GatewaySession = {
      id: `fake-session-${this.#count}`, socket: ws, intents: d.intents, shard, seq: 0, buffer: [],
      resumable: true, identify: d, identifiedAt: Date.now(),
    };
    this.sessions.set(session.id, session);
    this.options.onIdentified(session);
    return session;
  }

  private resume(ws: WebSocket, d: Record<string, unknown>): GatewaySession | null {
    const session = this.sessions.get(String(d.session_id));
    if (!session || !session.resumable || d.token !== this.options.token()) {
      ws.send(JSON.stringify({ op: 9, s: null, t: null, d: false }));
      return null;
    }
    session.socket = ws;
    const from = typeof d.seq === 'number' ? d.seq : 0;
    for (const frame of session.buffer) {
      if (frame.s > from) ws.send(JSON.stringify({ op: 0, ...frame }));
    }
    this.sendTo(session, 'RESUMED', { _trace: ['["fake-discord-gateway"]'] });
    this.options.onResumed(session);
    return session;
  }
}

/** The shard a guild lives on: (guild_id >> 22) % shard_count. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}
