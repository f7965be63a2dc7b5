/**
 * Reading what happened in the fake and waiting for it: messages, threads, interactions, REST calls
 * per route, rate-limit notes, registered commands, IDENTIFY payloads and the event log.
 */
import type { WaitOptions } from './events.js';
import type {
  CallbackRecord, FakeChannel, FakeCommand, FakeEvent, FakeInteraction, FakeMessage, RateLimitHit, RestCall,
} from './records.js';
import { peakInWindow } from './global-rate-limit.js';
import { MessageKind } from './records.js';
import { ServerAdmin } from './server-admin.js';

export class RecordedState extends ServerAdmin {
  /**
   * Messages in a channel or thread, oldest first; deleted ones, and the THREAD_STARTER_MESSAGE stub
   * Discord puts at the top of a thread started from a message (never dispatched), only when asked.
   */
  messagesIn(channelId: string, options: { includeDeleted?: boolean; includeStarter?: boolean } = {}): FakeMessage[] {
    return this.core.world.messagesIn(channelId).filter((m) => (options.includeDeleted || !m.deleted)
      && (options.includeStarter || m.type !== MessageKind.ThreadStarterMessage));
  }

  /** Messages the bot authored, optionally in one channel. */
  botMessages(channelId?: string): FakeMessage[] {
    const all = channelId
      ? this.messagesIn(channelId)
      : [...this.core.world.messages.values()].filter((m) => !m.deleted && m.type !== MessageKind.ThreadStarterMessage);
    return all.filter((m) => m.authorId === this.core.botId);
  }

  message(id: string): FakeMessage | undefined {
    return this.core.world.messages.get(id);
  }

  channel(id: string): FakeChannel | undefined {
    return this.core.world.channels.get(id);
  }

  threadsIn(parentId: string): FakeChannel[] {
    return [...this.core.world.channels.values()].filter((c) => c.thread && c.parentId === parentId);
  }

  interaction(id: string): FakeInteraction | undefined {
    return this.core.interactions.get(id);
  }

  get interactions(): FakeInteraction[] {
    return [...this.core.interactions.values()];
  }

  get restCalls(): readonly RestCall[] {
    return this.core.restCalls;
  }

  /** REST calls per `METHOD /route/:template`, e.g. `{ 'POST /channels/:channelId/messages': 3 }`. */
  restCallCounts(): Record<string, number> {
    return Object.fromEntries(this.core.restCounts);
  }

  /** Number of REST calls, optionally only those matching a filter. */
  restCallTotal(filter: (call: RestCall) => boolean = () => true): number {
    return this.core.restCalls.filter(filter).length;
  }

  resetRestCalls(): void {
    this.core.restCalls.length = 0;
    this.core.restCounts.clear();
  }

  /** Calls to routes the fake does not know (each also logged). */
  get unknownRoutes(): RestCall[] {
    return this.core.restCalls.filter((c) => c.route === 'UNKNOWN');
  }

  /**
   * The most REST calls received in any one second (sliding), bound by the global limit or not:
   * `exempt` false counts what the global limit covers, true the interaction endpoints apart.
   */
  restPeakPerSecond(options: { exempt: boolean }): number {
    return peakInWindow(this.core.restCalls.filter((c) => c.exempt === options.exempt).map((c) => c.at));
  }

  /** Global-limit bookkeeping: requests past 50/s (answered 429 when enforcing), and 401/403/429s in the last 10 minutes. */
  get globalRateLimit(): { overLimit: number; invalidRequests: number } {
    return { overLimit: this.core.globalLimiter.overLimit.length, invalidRequests: this.core.globalLimiter.invalidRequests };
  }

  /** Each IDENTIFY: its shard and when (Date.now()) it arrived, in arrival order. */
  get identifyTimes(): Array<{ shard: [number, number]; at: number }> {
    return [...(this.core.gateway?.sessions.values() ?? [])].map((s) => ({ shard: s.shard, at: s.identifiedAt }));
  }

  get rateLimitHits(): readonly RateLimitHit[] {
    return this.core.rateLimiter.hits;
  }

  /** performance.now() of every typing indicator the bot sent in a channel (POST /channels/:id/typing). */
  typingIn(channelId: string): number[] {
    return this.core.events.events.flatMap((e) => (e.kind === 'typing' && e.channelId === channelId ? [e.at] : []));
  }

  /**
   * performance.now() of a message's creation followed by each of its edits, to measure how fast the
   * bot edits one message (e.g. a streamed answer).
   */
  editTimestamps(messageId: string): number[] {
    const m = this.core.world.messages.get(messageId);
    if (!m) throw new Error(`fake-discord: no message ${messageId}`);
    return [m.createdAtMs, ...m.edits.map((e) => e.atMs)];
  }

  /** Registered application commands; `null` for global ones, a guild id for that guild's. */
  commands(guildId: string | null = null): FakeCommand[] {
    return [...this.core.commands.values()].filter((c) => c.guildId === guildId);
  }

  /** IDENTIFY payloads the gateway received, in order (intents, shard, properties…). */
  get identifies(): Array<Record<string, unknown>> {
    return [...(this.core.gateway?.sessions.values() ?? [])].map((s) => s.identify);
  }

  get events(): readonly FakeEvent[] {
    return this.core.events.events;
  }

  /** A position in the event log, for `{ since }` in the wait helpers. */
  mark(): number {
    return this.core.events.mark();
  }

  dump(): string {
    return this.core.dump();
  }

  // ---- waiting ---------------------------------------------------------------------------------

  /** Resolves with the first event (from `since`, default the whole history) matching; rejects with a dump on timeout. */
  waitFor(predicate: (event: FakeEvent) => boolean, timeoutMs = 5000, options: WaitOptions = {}): Promise<FakeEvent> {
    return this.core.events.waitFor(predicate, timeoutMs, options);
  }

  /** A created or edited message (current state) matching the predicate. */
  async waitForMessage(predicate: (m: FakeMessage) => boolean, timeoutMs = 5000, options: WaitOptions = {}): Promise<FakeMessage> {
    const e = await this.waitFor((x) => x.kind === 'message' && x.action !== 'delete' && !x.message.deleted && predicate(x.message), timeoutMs, options);
    return (e as Extract<FakeEvent, { kind: 'message' }>).message;
  }

  /** The first callback (accepted or refused) for an interaction. */
  async waitForCallback(interactionId: string, timeoutMs = 5000): Promise<CallbackRecord> {
    const e = await this.waitFor((x) => x.kind === 'callback' && x.interaction.id === interactionId, timeoutMs, {
      description: `a callback for interaction ${interactionId}`,
    });
    return (e as Extract<FakeEvent, { kind: 'callback' }>).callback;
  }

  async waitForThread(predicate: (c: FakeChannel) => boolean = () => true, timeoutMs = 5000, options: WaitOptions = {}): Promise<FakeChannel> {
    const e = await this.waitFor((x) => x.kind === 'thread' && predicate(x.channel), timeoutMs, options);
    return (e as Extract<FakeEvent, { kind: 'thread' }>).channel;
  }

  /** Resolves once a session has identified and received its guilds. */
  async waitForReady(timeoutMs = 5000): Promise<void> {
    await this.waitFor((e) => e.kind === 'gateway' && e.action === 'ready', timeoutMs, { description: 'a gateway session to become ready' });
  }
}
