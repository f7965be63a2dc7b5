/**
 * The parts the composition root wires, each built by a small factory that says what it needs and
 * gives back what it provides; `startApp` (app.ts) calls them in order. The decisions in them are the
 * configuration's: nothing here chooses a number of its own.
 */
import os from 'node:os';
import type { Client } from 'discord.js';
import { takesImages, type Config } from '../src/config.js';
import type { Core } from '../src/core.js';
import { createAttachmentReader } from '../src/discord/files/attachments.js';
import type { REST } from 'discord.js';
import { postToLogChannel, postToLogChannelRest } from '../src/discord/rules/audit-trail.js';
import { createRules, type Rules } from '../src/discord/rules/rules.js';
import { createToolPolicy } from '../src/discord/rules/place-rules.js';
import { RunJournal } from '../src/discord/runs/run-journal.js';
import { RunRegistry } from '../src/discord/runs/run-registry.js';
import { suspendedToolLine } from '../src/discord/text/rule-text.js';
import { createTurnMemory } from '../src/discord/memory/turn-memory.js';
import type { TurnDeps } from '../src/discord/turn/deps.js';
import { createTurns, type Turns } from '../src/discord/turn/pipeline.js';
import { PACING } from '../src/discord/turn/thread-view.js';
import type { Logger } from '../src/logger.js';
import { createMetrics, type Metrics } from '../src/ops/metrics.js';
import type { RunTracer } from '../src/ops/run-tracer.js';
import { offerOnlyWhere, type ChangeRecord, type ChannelDefaults } from '../src/policy/index.js';
import { CLAIM_TIMING, runReservation, type GuildSettings, type Storage, type ThreadQueue, type UsageLimiter } from '../src/state/index.js';
import type { AppKnowledge } from './knowledge.js';
import type { AppThreads } from './memory.js';

/** Closers run last first, once: on a failed start and on stop alike. */
export class Teardown {
  private readonly closers: Array<() => Promise<unknown> | unknown> = [];

  add(close: () => Promise<unknown> | unknown): void {
    this.closers.push(close);
  }

  async run(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await Promise.resolve().then(close).catch(() => undefined);
  }
}

/**
 * Where lines meant for a server's log channel go: to the log through the bot's client once the bot has
 * one (it is handed over as the bot starts, before any interaction), to the process log before (a tool
 * suspended while MCP servers start up). The rules object's writes post through it.
 */
export class LogChannelPosts {
  private poster: ((guildId: string, channelId: string, line: string) => Promise<string>) | undefined;

  constructor(private readonly logger: Logger) {}

  connected(client: Client): void {
    this.poster = (guildId, channelId, line) => postToLogChannel(this.logger, client, guildId, channelId, line);
  }

  /** A web console running apart from the bot posts through Discord's REST with the bot token. */
  connectedRest(rest: REST): void {
    this.poster = (guildId, channelId, line) => postToLogChannelRest(this.logger, rest, guildId, channelId, line);
  }

  /** '' once posted (or with no channel to post to), else a note for whoever made the change saying why it could not be. */
  async post(guildId: string, channelId: string | undefined, line: string): Promise<string> {
    return this.poster && channelId ? this.poster(guildId, channelId, line) : '';
  }
}

/** The runs in flight, their journal (one per process or shard: a restarted one finds its predecessor's), and the usage limiter. */
export async function openRuns(config: Config, storage: Storage, logger: Logger): Promise<{ runs: RunRegistry; journal: RunJournal; limiter: UsageLimiter }> {
  const name = RunJournal.nameFor(config.ops.shard);
  const journal = new RunJournal(storage.runJournal(name), logger);
  const limiter = await storage.openUsageLimiter({
    prices: config.governance.prices,
    // A run's claim carries this process and is renewed by its heartbeat: it outlives a process that
    // vanished by at most a lease, and a process restarted in the same place (this host, this journal)
    // drops its predecessor's claims at once.
    ...CLAIM_TIMING,
    owner: { id: journal.boot, slot: `${os.hostname()}:${name}` },
    reserveTokens: runReservation(config.storage.historyTokenBudget, config.model.maxTokens),
  });
  if (limiter.releasedAtStart > 0) logger.warn({ claims: limiter.releasedAtStart }, 'released the usage claims of runs that died with the last process here');
  return { runs: new RunRegistry({ observer: journal }), journal, limiter };
}

/** The process's Prometheus metrics over what it runs. */
export function buildMetrics(config: Config, parts: { core: Core; queue: ThreadQueue; runs: RunRegistry }): Metrics {
  const { core, queue, runs } = parts;
  const shard = config.ops.shard;
  return createMetrics({
    tools: core.engine.tools.map((t) => t.name),
    isTool: (name) => core.engine.tools.some((t) => t.name === name),
    queueWaiting: () => queue.waitingJobs,
    queueThreads: () => queue.activeThreads,
    runsActive: () => runs.size,
    mcpServers: () => core.mcp.status(),
    defaultLabels: shard ? { shard: String(shard.id) } : undefined,
    // Process metrics keep a monitor running: only when someone can scrape them.
    processMetrics: config.ops.healthPort !== undefined,
  });
}

/**
 * The rules of every place (src/discord/rules/rules.ts), over the guild settings and the engine's tools:
 * the one door to the settings store, handed over here and reached by nothing else.
 */
export function buildRules(
  config: Config,
  // The tools and the default model (a console apart from the bot lists the built-in tools without an engine).
  parts: { storage: Pick<Storage, 'guildSettings'>; core: Pick<Core, 'defaultModel'> & { engine: Pick<Core['engine'], 'tools'> }; knowledge?: AppKnowledge; threads?: AppThreads; logChannel: LogChannelPosts; now: () => Date; logger: Logger },
): Rules & { channelDefaults: ChannelDefaults } {
  const { storage, core, knowledge, threads, logChannel, now, logger } = parts;
  const toolPolicy = (read: (guildId: string) => Promise<GuildSettings>) => {
    // MCP tools come and go, so the policy reads the engine's tools each time; a tool its server changed
    // since it was enabled is suspended, and the server's log channel is told.
    const policy = createToolPolicy(read, () => core.engine.tools, logger, Date.now, (held) => {
      logger.warn(held, 'an MCP tool changed since it was enabled: suspended in this server until a moderator enables it again');
      void logChannel.post(held.guildId, held.logChannelId, suspendedToolLine(held.tool));
    });
    // search_knowledge is offered only in a server that has documents; the answer is cached (see DocumentPresence).
    const withKnowledge = knowledge ? offerOnlyWhere(policy, 'search_knowledge', knowledge.presence.has, logger) : policy;
    // search_threads likewise, only in a server with threads indexed (cached the same way).
    return threads ? offerOnlyWhere(withKnowledge, 'search_threads', threads.presence.has, logger) : withKnowledge;
  };
  const channelDefaults = { maxSteps: config.agent.maxSteps, model: core.defaultModel, models: config.model.models };
  const rules = createRules({
    guildSettings: storage.guildSettings,
    defaultLimits: config.governance.limits,
    channelDefaults,
    toolPolicy,
    policyTool: (tool) => core.engine.tools.find((t) => t.name === tool),
    logChannel: (guildId, channelId, line) => logChannel.post(guildId, channelId, line),
    now,
    logger,
  });
  return { ...rules, channelDefaults };
}

/** The audit writer for what happens in runs (approval decisions, automatic pauses): the rules object's record of an action. */
export function auditWriter(rules: Pick<Rules, 'recordAction'>, logger: Logger): (guildId: string, record: ChangeRecord) => Promise<void> {
  return async (guildId, { actorId, actorName, action, detail, via }) => {
    try {
      await rules.recordAction(guildId, { id: actorId, name: actorName, ...(via ? { via } : {}) }, { action, detail });
    } catch (error) {
      logger.error({ err: error, guildId, action }, 'could not audit a decision');
    }
  };
}

/** What reads the files members attach: images for vision models, text within half the history's budget. */
function buildAttachments(config: Config, core: Core, extraOrigins?: string[]): NonNullable<TurnDeps['attachments']> {
  return createAttachmentReader({
    maxTextBytes: config.attachments.maxTextBytes,
    maxImageBytes: config.attachments.maxImageBytes,
    takesImages: (model) => takesImages(config.attachments.vision, model),
    // The files of one message together take at most half the history's budget, so the question and
    // recent turns still fit; counted with the history's own counter.
    shorten: (text, maxTokens) => core.tokenCounter.shorten(text, maxTokens),
    countTokens: (text) => core.tokenCounter.text(text),
    maxTextTokens: Math.floor(config.storage.historyTokenBudget / 2),
    extraOrigins,
  });
}

/** What tests and benches set of how turns post and batch; everything else comes from the configuration. */
export interface TurnOverrides {
  /** Fewest milliseconds between edits of a step-log message (default: the thread view's pacing). */
  stepLogIntervalMs?: number;
  /** Fewest milliseconds between edits of a streaming answer (default: the thread view's pacing). */
  answerEditIntervalMs?: number;
  /**
   * Origins besides Discord's CDN that attached files may be fetched from: the fake Discord's CDN
   * in tests. Deliberately not a setting: in production files come from Discord's CDN only.
   */
  attachmentOrigins?: string[];
  /** How many waiting messages one turn takes (the bench sets 1 to measure one run per message). */
  followUpBatch?: { maxMessages?: number };
}

/** The turn pipeline (src/discord/turn/) over the parts, with memory that outlives a thread and the turns' observers. */
export function buildTurns(
  config: Config,
  parts: {
    core: Core; storage: Storage; limiter: UsageLimiter; rules: Rules; queue: ThreadQueue; runs: RunRegistry; threads?: AppThreads;
    audit: TurnDeps['approvals']['audit']; metrics: Metrics; tracer?: RunTracer; now: () => Date; logger: Logger;
  },
  overrides: TurnOverrides = {},
): Turns {
  const { core, storage, limiter, rules, queue, runs, threads, audit, metrics, tracer, now, logger } = parts;
  return createTurns({
    engine: core.engine,
    modelFor: core.modelFor,
    admission: { limiter, allowDms: config.governance.allowDms, questionMaxChars: config.governance.questionMaxChars, logger },
    rules,
    queue,
    runs,
    memory: { conversations: storage.conversations, historyTokenBudget: config.storage.historyTokenBudget, tokenCounter: core.tokenCounter },
    skills: storage.skills,
    pacing: { stepLogIntervalMs: overrides.stepLogIntervalMs ?? PACING.stepLogIntervalMs, answerEditIntervalMs: overrides.answerEditIntervalMs ?? PACING.answerEditIntervalMs },
    attachments: buildAttachments(config, core, overrides.attachmentOrigins),
    approvals: { store: storage.waitingTurns, timeoutMs: config.agent.approvalTimeoutMs, audit },
    feedback: storage.feedback,
    // Memory that outlives a thread: the prompt's notes, the memory tools' context, indexing for search.
    memberMemory: createTurnMemory({
      store: storage.memberMemory,
      threads: threads && { index: threads.index, presence: threads.presence },
      rules,
      tokenBudget: config.storage.memoryTokenBudget,
      countTokens: (text) => core.tokenCounter.text(text),
      logger,
      now,
    }),
    ...(overrides.followUpBatch ? { batch: overrides.followUpBatch } : {}),
    observers: {
      onEvent: (event) => {
        metrics.observeEvent(event);
        tracer?.observe(event);
      },
      traceRun: tracer?.traceRun,
      onLimitRefusal: (limit) => metrics.countLimitRefusal(limit),
    },
    logger,
    now,
  });
}
