/**
 * The composition root: the only place that knows every part. It builds storage, the engine and its
 * tools, the tool policy, the turn starter and the Discord client from the configuration, and hands
 * the command list to the bot. `npm start` runs it as a process; the end-to-end tests start the same
 * thing against the fake Discord and the fake model server, with a few `AppOverrides`.
 */
import os from 'node:os';
import { interactions } from '../commands/index.js';
import { takesImages, type Config } from '../src/config.js';
import { createAttachmentReader } from '../src/discord/files/attachments.js';
import { createCore, type CoreOverrides } from '../src/core.js';
import { startBot, type RunningBot } from '../src/discord/bot.js';
import { ApprovalRegistry } from '../src/discord/turn/approvals.js';
import { PendingAsks } from '../src/discord/pending-asks.js';
import { RunRegistry } from '../src/discord/runs/run-registry.js';
import { RunJournal } from '../src/discord/runs/run-journal.js';
import { restRecoveryActions } from '../src/discord/runs/journal-discord.js';
import { postToLogChannel } from '../src/discord/rules/audit-trail.js';
import { suspendedToolLine } from '../src/discord/text/rule-text.js';
import type { BotServices } from '../src/discord/services.js';
import { createTurns } from '../src/discord/turn/pipeline.js';
import { createScheduleRunner } from '../src/discord/schedules/schedule-runner.js';
import { createScheduler, systemClock, type Scheduler, type SchedulerClock, type TickReport } from '../src/discord/schedules/scheduler.js';
import type { Logger } from '../src/logger.js';
import { startHealthServer, type HealthServer } from '../src/ops/health-server.js';
import { measureModel } from '../src/ops/measured-model.js';
import { createMetrics, type Metrics } from '../src/ops/metrics.js';
import { offerOnlyWhere } from '../src/policy/index.js';
import { createToolPolicy } from '../src/discord/rules/tool-policy.js';
import { createRules } from '../src/discord/rules/rules.js';
import { createStorage, ThreadQueue, type Storage, type StorageEvent, type ThreadQueueOptions } from '../src/state/index.js';
import { openAppKnowledge, type AppKnowledge, type KnowledgeOverrides } from './knowledge.js';
import { scaleParts } from './scale.js';
import { startTelemetry } from './telemetry.js';

/** What tests replace: everything else comes from the configuration, as under `npm start`. */
export interface AppOverrides extends CoreOverrides {
  /** An already open storage (a restart test keeps its data); closed by `stop` all the same. */
  storage?: Storage;
  queue?: ThreadQueueOptions;
  /** Fewest milliseconds between edits of a step-log message (default 1,200). */
  stepLogIntervalMs?: number;
  /** Fewest milliseconds between edits of a streaming answer (default 1,000). */
  answerEditIntervalMs?: number;
  /**
   * Origins besides Discord's CDN that attached files may be fetched from: the fake Discord's CDN
   * in tests. Deliberately not a setting: in production files come from Discord's CDN only.
   */
  attachmentOrigins?: string[];
  now?: () => Date;
  /** How many waiting messages one turn takes (the bench sets 1 to measure one run per message). */
  followUpBatch?: { maxMessages?: number };
  /** Tests only: the fake Discord's CDN, and how long "has documents" is cached. */
  knowledge?: KnowledgeOverrides;
  /** The scheduler's clock (tests move it by hand and tick the scheduler themselves). */
  schedulerClock?: SchedulerClock;
}

export interface App {
  bot: RunningBot;
  services: BotServices;
  storage: Storage;
  /** The process's Prometheus metrics (served at /metrics when HEALTH_PORT is set). */
  metrics: Metrics;
  /** The /healthz, /readyz and /metrics server, when HEALTH_PORT is set. */
  health?: HealthServer;
  /** The knowledge base, when it is on. */
  knowledge?: AppKnowledge;
  /** Runs scheduled questions for the guilds this process holds (started once the bot is ready). */
  scheduler: Scheduler;
  /** Settles with the scheduler's first tick: what was missed while the bot was down, claimed and launched. */
  scheduled: Promise<TickReport>;
  /** Settles when the runs a crashed predecessor left have been tidied up: how many there were. */
  recovered: Promise<number>;
  /** Stop runs (each says it was interrupted), disconnect, close the calculator, knowledge base and storage. */
  stop(): Promise<void>;
}

/** How often a process renews its runs' usage claims, and how long they last without renewal. */
const CLAIM_TIMING = { heartbeatMs: 15_000, leaseMs: 60_000 } as const;

export async function startApp(config: Config, logger: Logger, overrides: AppOverrides = {}): Promise<App> {
  if (!config.discord) throw new Error('startApp needs the Discord configuration');
  const storage = overrides.storage ?? (await createStorage(config.storage, { logger: (event: StorageEvent) => logger[event.level](event, event.message) }));
  let knowledge: AppKnowledge | undefined;
  try {
    knowledge = await openAppKnowledge(config, logger, { ...overrides.knowledge, readUrl: overrides.toolbox?.readUrl });
  } catch (error) {
    await storage.close();
    throw error;
  }
  const queue = new ThreadQueue(overrides.queue);
  // One journal per process (per shard when sharded): a restarted process finds its predecessor's dead runs.
  const journalName = config.ops.shard ? `shard-${config.ops.shard.id}` : 'main';
  const journal = new RunJournal(storage.runJournal(journalName), logger);
  const runs = new RunRegistry({ observer: journal });
  const shard = config.ops.shard;
  // The metrics need the tool list the core builds, and the core's model reports to the metrics.
  let metrics!: Metrics;
  const modelObserver = { observeModelRequest: (seconds: number, kind?: string) => metrics.observeModelRequest(seconds, kind) };
  // Traces (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set); the REST proxy and spaced logins of a shard.
  const telemetry = config.ops.traces ? await startTelemetry(config.ops.traces, shard) : undefined;
  const tracer = telemetry?.tracer;
  const scale = await scaleParts(config, tracer);
  // web_search counts each server's searches in the usage store, opened below (searches run only after start-up).
  const searchAllowance = (guildId: string | null, max: number) => limiter.takeDaily('web_search', guildId, max);
  const core = await createCore(config, { ...overrides, wrapModel: (model) => measureModel(tracer ? tracer.wrapModel(model) : model, modelObserver) }, {
    knowledge: knowledge?.services.base,
    searchAllowance,
    logger,
    onMcpCall: (server, outcome) => metrics.countMcpCall(server, outcome),
  });
  metrics = createMetrics({
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
  const now = overrides.now ?? (() => new Date());
  const channelDefaults = { maxSteps: config.agent.maxSteps, model: core.defaultModel, models: config.model.models };
  let bot: RunningBot | undefined;
  // MCP tools come and go, so the policy reads the engine's tools each time; a tool its server changed
  // since it was enabled is suspended, and the server's log channel is told.
  const policy = createToolPolicy(storage.guildSettings, () => core.engine.tools, logger, Date.now, (held) => {
    logger.warn(held, 'an MCP tool changed since it was enabled: suspended in this server until a moderator enables it again');
    if (held.logChannelId && bot) {
      void postToLogChannel(logger, bot.client, held.guildId, held.logChannelId, suspendedToolLine(held.tool));
    }
  });
  // search_knowledge is offered only in a server that has documents; the answer is cached (see DocumentPresence).
  const allowedTools = knowledge ? offerOnlyWhere(policy, 'search_knowledge', knowledge.presence.has, logger) : policy;
  const limiter = await storage.openUsageLimiter({
    prices: config.governance.prices,
    // A run's claim (its slot, its reserved tokens) carries this process and is renewed by its heartbeat:
    // it outlives a process that vanished by at most a minute, and a process restarted in the same place
    // (this host, this journal) drops its predecessor's claims at once.
    ...CLAIM_TIMING,
    owner: { id: journal.boot, slot: `${os.hostname()}:${journalName}` },
    // One model call's worth, the largest a run's first call can be: its history and its reply.
    reserveTokens: config.storage.historyTokenBudget + (config.model.maxTokens ?? 1_024),
  });
  if (limiter.releasedAtStart > 0) logger.warn({ claims: limiter.releasedAtStart }, 'released the usage claims of runs that died with the last process here');

  const approvals = new ApprovalRegistry();
  // Every rule of a place, read in one place with every fallback decided there (src/discord/rules/rules.ts).
  const rules = createRules({
    guildSettings: storage.guildSettings,
    defaultLimits: config.governance.limits,
    channelDefaults,
    allowedTools,
    asksByDefault: (tool) => core.engine.tools.find((t) => t.name === tool)?.askByDefault === true,
    logger,
  });

  const attachments = createAttachmentReader({
    maxTextBytes: config.attachments.maxTextBytes,
    maxImageBytes: config.attachments.maxImageBytes,
    takesImages: (model) => takesImages(config.attachments.vision, model),
    // The files of one message together take at most half the history's budget, so the question and
    // recent turns still fit; counted with the history's own counter.
    shorten: (text, maxTokens) => core.tokenCounter.shorten(text, maxTokens),
    countTokens: (text) => core.tokenCounter.text(text),
    maxTextTokens: Math.floor(config.storage.historyTokenBudget / 2),
    extraOrigins: overrides.attachmentOrigins,
  });

  const turns = createTurns({
    engine: core.engine,
    ...(overrides.followUpBatch ? { batch: overrides.followUpBatch } : {}),
    admission: {
      limiter,
      allowDms: config.governance.allowDms,
      questionMaxChars: config.governance.questionMaxChars,
      logger,
    },
    modelFor: core.modelFor,
    rules,
    queue,
    runs,
    memory: { conversations: storage.conversations, historyTokenBudget: config.storage.historyTokenBudget, tokenCounter: core.tokenCounter },
    pacing: { stepLogIntervalMs: overrides.stepLogIntervalMs ?? 1_200, answerEditIntervalMs: overrides.answerEditIntervalMs ?? 1_000 },
    attachments,
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
    approvals: { registry: approvals, timeoutMs: config.agent.approvalTimeoutMs, guildSettings: storage.guildSettings },
  });

  // Scheduled questions: each occurrence claimed once in the shared storage, then run as its owner's turn.
  const scheduleClaims = await storage.openScheduleClaims();
  const clock = overrides.schedulerClock ?? systemClock;
  const scheduleRunner = createScheduleRunner({
    turns, rules, schedules: storage.schedules, conversations: storage.conversations, guildSettings: storage.guildSettings,
    graceMinutes: config.schedules.graceMinutes, logger, now: () => clock.now(),
  });
  const scheduler = createScheduler({
    store: storage.schedules,
    claims: scheduleClaims,
    clock,
    // A guild's schedules run on the process (shard) that holds it.
    heldGuilds: () => (bot ? [...bot.client.guilds.cache.keys()] : []),
    graceMs: config.schedules.graceMinutes * 60_000,
    launch: (due) => scheduleRunner.run(bot!.client, due),
    logger,
  });

  const services: BotServices = {
    turns: {
      ...turns,
      runs,
      approvals,
      queue,
      conversations: storage.conversations,
      pendingAsks: new PendingAsks({ now: () => now().getTime() }),
    },
    rules: {
      ...rules,
      store: storage.guildSettings,
      // A getter: MCP servers add and change tools while the bot runs.
      get tools() {
        return core.engine.tools;
      },
      channelDefaults,
      serverModels: core.serverModels,
    },
    usage: { limiter, defaultLimits: config.governance.limits },
    knowledge: knowledge?.services,
    schedules: {
      store: storage.schedules,
      caps: { perServer: config.schedules.perServer, perMember: config.schedules.perMember, minIntervalMinutes: config.schedules.minIntervalMinutes },
      graceMinutes: config.schedules.graceMinutes,
      now: () => clock.now(),
      marks: (keys) => scheduleClaims.marks(keys),
      forget: (key) => scheduleClaims.forget(key),
      runNow: (client, schedule, placed) => scheduleRunner.run(client, { schedule, manual: true }, placed),
      changed: () => scheduler.changed(),
    },
    runtime: { logger, now, messageContent: config.discord.messageContent },
  };

  let health: HealthServer | undefined;
  try {
    // Up before the gateway connects, so /healthz answers and /readyz says why it is not ready yet.
    if (config.ops.healthPort !== undefined) {
      health = await startHealthServer({
        host: config.ops.healthHost,
        port: config.ops.healthPort === 0 ? 0 : config.ops.healthPort + (shard?.id ?? 0),
        metrics,
        checks: {
          gateway: () => {
            if (!bot?.gatewayReady()) throw new Error(bot ? 'not connected to Discord (reconnecting, or closed)' : 'connecting to Discord');
          },
          storage: () => storage.ping(),
          ...scale.checks,
        },
      });
    }
    bot = await startBot(services, {
      token: config.discord.token,
      apiBaseUrl: config.discord.apiBaseUrl,
      interactions,
      onAcknowledged: (kind, seconds) => metrics.observeAcknowledgement(kind, seconds),
      client: scale.client,
    });
  } catch (error) {
    await health?.close();
    await core.close();
    await knowledge?.close();
    await storage.close();
    await scale.close();
    await telemetry?.shutdown();
    throw error;
  }
  const running = bot;
  // Ready: the first tick runs what was missed while the bot was down (within the grace period).
  const scheduled = scheduler.start();
  // In the background: the bot answers at once; runs that start meanwhile are journaled after it.
  const recovered = journal.recover(restRecoveryActions(running.client));
  logger.info(
    { storage: storage.where, model: config.model.model, baseURL: config.model.baseURL ?? 'OpenAI', knowledge: knowledge?.services.base.where ?? 'off', health: health?.url, contextTokens: core.contextTokens ?? 'unknown (set MODEL_CONTEXT_TOKENS)' },
    'threadwise is running',
  );
  return {
    bot: running,
    services,
    storage,
    metrics,
    health,
    knowledge,
    scheduler,
    scheduled,
    recovered,
    async stop() {
      scheduler.stop();
      await running.stop();
      // The interrupted runs' last entries go out before the storage closes.
      await journal.flush();
      await health?.close();
      await core.close();
      await knowledge?.close();
      await storage.close();
      await scale.close();
      await telemetry?.shutdown();
    },
  };
}
