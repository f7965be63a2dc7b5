/**
 * A local fake of Discord's REST API v10 and gateway v10 on 127.0.0.1 (random port), faithful enough
 * that the real discord.js client logs in against it. Tests build the world, act as users, and
 * assert on what the bot did through the recorded state. See README.md in this folder.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { FakeCore } from './core.js';
import { Gateway } from './gateway.js';
import { RestRouter } from './http.js';
import { Conversations } from './conversations.js';
import { bits, type PermissionInput } from './permissions.js';
import { channelRoutes } from './routes/channels.js';
import { interactionRoutes } from './routes/interactions.js';
import { messageRoutes } from './routes/messages.js';
import { metaRoutes } from './routes/meta.js';
import { FakeOAuth } from './oauth.js';
import { SnowflakeCounter } from './snowflake.js';
import { sendMemberChunks, sendReady } from './ready.js';
import { FakeWorld } from './world.js';

export interface FakeDiscordOptions {
  /** The bot token the fake accepts (REST `Authorization: Bot …` and gateway IDENTIFY). */
  token?: string;
  botUsername?: string;
  /** Defaults to the bot user's id, as for every modern Discord application. */
  applicationId?: string;
  /** Reported in READY and GET /applications/@me. */
  applicationFlags?: number;
  /** Interactions not acknowledged within this many ms expire (callback → 404, code 10062). Default 3000. */
  ackDeadlineMs?: number;
  /** Interaction webhook tokens stop working after this many ms (401, code 50027). Default 15 minutes. */
  tokenLifetimeMs?: number;
  /** HELLO heartbeat interval. Default 41250 like Discord. */
  heartbeatIntervalMs?: number;
  /** Shard count recommended by GET /gateway/bot. Default 1. */
  shards?: number;
  /** Sessions per day in GET /gateway/bot's `session_start_limit`; each IDENTIFY uses one. Default 1000. */
  sessionStartLimit?: number;
  /** Privileged intents enabled for the app in the developer portal; requesting a disabled one closes the gateway with 4014. All enabled by default. */
  privilegedIntents?: { guildMembers?: boolean; presences?: boolean; messageContent?: boolean };
  /** Per-channel message rate limit model: `record` notes bursts, `enforce` answers 429. Default record, 5 per 5000 ms. */
  rateLimit?: { mode?: 'off' | 'record' | 'enforce'; limit?: number; windowMs?: number };
  /**
   * The global limit per bot token (interaction endpoints exempt): `record` (default) counts requests
   * past it, `enforce` answers Discord's global 429. Default 50 per second.
   */
  globalRateLimit?: { mode?: 'off' | 'record' | 'enforce'; perSecond?: number };
  /** `session_start_limit.max_concurrency` in GET /gateway/bot: shards that may identify together. Default 1. */
  maxConcurrency?: number;
  /** Send MESSAGE_CREATE/UPDATE for the bot's own messages, as Discord does. Default true. */
  echoBotMessages?: boolean;
  /** Guild-level permissions of the bot's managed role in guilds the fake creates. */
  botPermissions?: PermissionInput;
  everyonePermissions?: PermissionInput;
  /** Create the default guild, channels and users. Default true. */
  defaultWorld?: boolean;
  attachmentSizeLimit?: number;
  /** How long a signed attachment URL stays valid (Discord does not document it). Default 24 hours. */
  attachmentUrlLifetimeMs?: number;
  /** Wall clock for signed attachment URLs (`ex`/`is`), so a test can let them expire. Default Date.now. */
  now?: () => number;
  /** Where unknown routes and internal errors are reported. Default console.warn. */
  log?: (line: string) => void;
  /** Timestamp encoded in the first snowflake. */
  idBaseTime?: number;
}

/** Ids of the default world (present unless `defaultWorld: false`). */
export interface FakeDefaults {
  guildId: string;
  everyoneRoleId: string;
  botRoleId: string;
  categoryId: string;
  /** #general */
  channelId: string;
  /** #random */
  otherChannelId: string;
  ownerId: string;
  /** alice */
  userId: string;
  /** bob */
  otherUserId: string;
}

export class FakeDiscord extends Conversations {
  readonly token: string;
  readonly botId: string;
  readonly applicationId: string;
  readonly defaults: FakeDefaults;
  /** Discord's OAuth2 side: the authorize page, the token URL, and what a bearer token reads (oauth.ts). */
  readonly oauth: FakeOAuth;
  #server: Server | null = null;
  #wss: WebSocketServer | null = null;
  #router: RestRouter | null = null;
  #port = 0;
  readonly #shards: number;
  readonly #sessionStartLimit: number;
  readonly #maxConcurrency: number;
  readonly #privileged: { guildMembers: boolean; presences: boolean; messageContent: boolean };
  readonly #heartbeat: number;

  constructor(options: FakeDiscordOptions = {}) {
    const ids = new SnowflakeCounter(options.idBaseTime);
    const botId = ids.next();
    const world = new FakeWorld(ids, botId);
    world.addUser({ id: botId, username: options.botUsername ?? 'threadwise', bot: true });
    const privileged = { guildMembers: true, presences: true, messageContent: true, ...options.privilegedIntents };
    const core = new FakeCore(world, {
      token: options.token ?? `${Buffer.from(botId).toString('base64').replace(/=+$/, '')}.fake.discord-bot-token`,
      applicationId: options.applicationId ?? botId,
      applicationFlags: options.applicationFlags ?? (privileged.messageContent ? 1 << 19 : 0),
      ackDeadlineMs: options.ackDeadlineMs ?? 3000,
      tokenLifetimeMs: options.tokenLifetimeMs ?? 15 * 60_000,
      rateLimit: { mode: 'record', limit: 5, windowMs: 5000, ...options.rateLimit },
      globalRateLimit: { mode: 'record', perSecond: 50, ...options.globalRateLimit },
      echoBotMessages: options.echoBotMessages ?? true,
      messageContentEnabled: privileged.messageContent,
      attachmentSizeLimit: options.attachmentSizeLimit ?? 10 * 1024 * 1024,
      attachmentUrlLifetimeMs: options.attachmentUrlLifetimeMs ?? 24 * 60 * 60_000,
      now: options.now ?? Date.now,
      log: options.log ?? ((line) => console.warn(line)),
    });
    super(core, {
      botPermissions: options.botPermissions === undefined ? undefined : bits(options.botPermissions),
      everyonePermissions: options.everyonePermissions === undefined ? undefined : bits(options.everyonePermissions),
    });
    this.token = core.settings.token;
    this.botId = botId;
    this.applicationId = core.settings.applicationId;
    this.#shards = options.shards ?? 1;
    this.#sessionStartLimit = options.sessionStartLimit ?? 1000;
    this.#maxConcurrency = options.maxConcurrency ?? 1;
    this.#privileged = privileged;
    this.#heartbeat = options.heartbeatIntervalMs ?? 41_250;
    this.oauth = new FakeOAuth(core.world, () => this.applicationId, core.settings.now);
    this.defaults = options.defaultWorld === false ? emptyDefaults() : this.createDefaultWorld();
  }

  /** Creates a fake and starts listening. */
  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const fake = new FakeDiscord(options);
    await fake.listen();
    return fake;
  }

  get port(): number {
    return this.#port;
  }

  /** The REST base to give discord.js as `rest.api` (it appends `/v10`). */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.#port}/api`;
  }

  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.#port}`;
  }

  /**
   * This fake's stand-in for `https://cdn.discordapp.com`: attachment URLs are `${cdnUrl}/attachments/…`
   * with Discord's signed query. Tell the bot this is "Discord's CDN" in tests.
   */
  get cdnUrl(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Spread into `new Client({...})`: points the REST client (and thus gateway discovery) here. */
  clientOptions(): { rest: { api: string } } {
    return { rest: { api: this.apiUrl } };
  }

  async listen(): Promise<void> {
    if (this.#server) return;
    const core = this.core;
    const server = http.createServer((req, res) => void this.#onRequest(req, res));
    const wss = new WebSocketServer({ server });
    core.gateway = new Gateway(wss, {
      token: () => core.settings.token,
      heartbeatIntervalMs: this.#heartbeat,
      privileged: this.#privileged,
      onIdentified: (s) => sendReady(core, s, this.gatewayUrl),
      onResumed: (s) => core.emit({ kind: 'gateway', action: 'resume', sessionId: s.id }),
      onClosed: (s, code) => core.emit({ kind: 'gateway', action: 'close', sessionId: s.id, detail: { code } }),
      onRequestMembers: (s, d) => sendMemberChunks(core, s, d),
      log: core.settings.log,
    });
    this.#router = new RestRouter([
      ...metaRoutes(core, { gatewayUrl: () => this.gatewayUrl, shards: this.#shards, sessionStartLimit: this.#sessionStartLimit, maxConcurrency: this.#maxConcurrency }),
      ...interactionRoutes(core), ...messageRoutes(core), ...channelRoutes(core),
    ], { token: () => core.settings.token, onCall: (call) => core.recordRest(call), log: core.settings.log, global: core.globalLimiter });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#wss = wss;
    this.#port = (server.address() as AddressInfo).port;
    core.baseUrl = `http://127.0.0.1:${this.#port}`;
    core.cdn.base = this.cdnUrl;
  }

  /**
   * Closes every socket and the server; pending `waitFor`s are dropped. Destroy the client first; a
   * client still connected is closed with 4004 so it stops reconnecting instead of retrying forever.
   */
  async close(): Promise<void> {
    const core = this.core;
    for (const timer of core.timers) clearTimeout(timer);
    core.timers.clear();
    core.events.close();
    core.gateway?.close();
    const server = this.#server;
    const wss = this.#wss;
    this.#server = null;
    this.#wss = null;
    if (wss) await new Promise<void>((resolve) => wss.close(() => resolve()));
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  // ---- gateway ----------------------------------------------------------------------------------

  /** Drops the gateway connections with a resumable close code (default 4000); discord.js resumes and gets the missed events replayed. */
  dropConnections(code = 4000): void {
    this.core.gateway?.disconnect(code);
  }

  /** Sends any dispatch event to the bot (escape hatch for events the fake does not model); no `guildId` means shard 0. */
  dispatch(t: string, d: unknown, scope: { guildId?: string; intent?: number } = {}): number {
    return this.core.gateway?.dispatch(t, d, scope) ?? 0;
  }

  /**
   * Hold the REST requests `matches` picks (method, path under `/api/v10`) before they are handled,
   * until `release()`: to catch the bot between two calls (and kill it there). `reached` resolves when
   * the first one arrives. A held request whose client went away meanwhile is never handled, as a
   * request Discord never received.
   */
  holdRequests(matches: (method: string, path: string) => boolean): { reached: Promise<void>; release(): void } {
    let reached!: () => void;
    let release!: () => void;
    const hold = { matches, reached: new Promise<void>((r) => (reached = r)), released: new Promise<void>((r) => (release = r)), arrived: () => reached() };
    this.#holds.push(hold);
    return {
      reached: hold.reached,
      release: () => {
        this.#holds = this.#holds.filter((h) => h !== hold);
        release();
      },
    };
  }

  // ---- internals -------------------------------------------------------------------------------

  #holds: Array<{ matches: (method: string, path: string) => boolean; released: Promise<void>; arrived(): void }> = [];

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if ((req.method === 'GET' || req.method === 'HEAD') && this.core.cdn.handle(req, res)) return;
    if (await this.oauth.handle(req, res)) return;
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/^\/api\/v\d+/, '');
    const hold = this.#holds.find((h) => h.matches((req.method ?? 'GET').toUpperCase(), path));
    if (hold) {
      hold.arrived();
      await hold.released;
      if (req.socket.destroyed) return;
    }
    await this.#router?.handle(req, res);
  }
}

function emptyDefaults(): FakeDefaults {
  return { guildId: '', everyoneRoleId: '', botRoleId: '', categoryId: '', channelId: '', otherChannelId: '', ownerId: '', userId: '', otherUserId: '' };
}
