/**
 * The composition root: the only place that knows every part. It wires them, in the order they need
 * each other, each built by a factory (parts.ts) from the configuration, and decides nothing itself.
 * `npm start` runs it as a process; the end-to-end tests start the same thing against the fake Discord
 * and the fake model server, with a few `AppOverrides`.
 */
import { commands, interactions } from '../commands/index.js';
import { Events } from 'discord.js';
import { openAppSkills } from './skills.js';
import type { Config } from '../src/config.js';
import { createCore, type CoreOverrides } from '../src/core.js';
import { startBot, type RunningBot } from '../src/discord/bot.js';
import { PendingAsks } from '../src/discord/pending-asks.js';
import { OneTimeClaims } from '../src/discord/runs/one-time-claims.js';
import { restRecoveryActions } from '../src/discord/runs/journal-discord.js';
import type { BotServices } from '../src/discord/services.js';
import { sweepEvery } from '../src/discord/turn/waiting-turns.js';
import type { Logger } from '../src/logger.js';
import { startHealthServer, type HealthServer } from '../src/ops/health-server.js';
import { measureModel } from '../src/ops/measured-model.js';
import type { Metrics } from '../src/ops/metrics.js';
import { createStorage, ThreadQueue, type Storage, type StorageEvent, type ThreadQueueOptions } from '../src/state/index.js';
import { openAppKnowledge, type AppKnowledge, type KnowledgeOverrides } from './knowledge.js';
import { auditWriter, buildMetrics, buildRules, buildTurns, LogChannelPosts, openRuns, Teardown, type TurnOverrides } from './parts.js';
import { openAppThreads } from './memory.js';
import { createScheduleRunner } from '../src/discord/schedules/schedule-runner.js';
import { createScheduler, systemClock, type Scheduler, type SchedulerClock, type TickReport } from '../src/discord/schedules/scheduler.js';
import { scaleParts } from './scale.js';
import { startTelemetry } from './telemetry.js';
import { openConsole } from './console.js';
import { clientDiscord } from '../src/console/discord-reads.js';
import type { RunningConsole } from '../src/console/server.js';

/** What tests replace: everything else comes from the configuration, as under `npm start`. */
export interface AppOverrides extends CoreOverrides, TurnOverrides {
  /** An already open storage (a restart test keeps its data); closed by `stop` all the same. */
  storage?: Storage;
  queue?: ThreadQueueOptions;
  now?: () => Date;
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
  /** Settles when the skill commands of the guilds held at start-up are in line with their skills. */
  skillsSynced: Promise<void>;
  /** The web console, when CONSOLE_PORT is set (not in a shard: `npm run console` serves them all). */
  console?: RunningConsole;
  /** Stop runs (each says it was interrupted), disconnect, close the calculator, knowledge base and storage. */
  stop(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger, overrides: AppOverrides = {}): Promise<App> {
  if (!config.discord) throw new Error('startApp needs the Discord configuration');
  const discord = config.discord;
  const teardown = new Teardown();
  try {
    const storage = overrides.storage ?? (await createStorage(config.storage, { logger: (event: StorageEvent) => logger[event.level](event, event.message) }));
    teardown.add(() => storage.close());
    const knowledge = await openAppKnowledge(config, logger, { ...overrides.knowledge, readUrl: overrides.toolbox?.readUrl });
    teardown.add(() => knowledge?.close());
    const threads = await openAppThreads(config, logger, { presenceTtlMs: overrides.knowledge?.presenceTtlMs });
    teardown.add(() => threads?.close());
    // Traces (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set); the REST proxy and spaced logins of a shard.
    const telemetry = config.ops.traces ? await startTelemetry(config.ops.traces, config.ops.shard) : undefined;
    teardown.add(() => telemetry?.shutdown());
    const tracer = telemetry?.tracer;
    const scale = await scaleParts(config, tracer);
    teardown.add(() => scale.close());
    const { runs, journal, limiter } = await openRuns(config, storage, logger);
    const queue = new ThreadQueue(overrides.queue);
    const now = overrides.now ?? (() => new Date());

    // Model requests are timed for whoever listens: the metrics, made once the core's tools are known.
    const timings: Array<(seconds: number, kind?: string) => void> = [];
    const mcpCalls: Array<(server: string, outcome: string) => void> = [];
    const core = await createCore(config, { ...overrides, wrapModel: (model) => measureModel(tracer ? tracer.wrapModel(model) : model, { observeModelRequest: (s, k) => timings.forEach((f) => f(s, k)) }) }, {
      knowledge: knowledge?.services.base,
      memory: storage.memberMemory,
      threads: threads?.index,
      // web_search counts each server's searches in the usage store.
      searchAllowance: (guildId, max) => limiter.takeDaily('web_search', guildId, max),
      logger,
      onMcpCall: (server, outcome) => mcpCalls.forEach((f) => f(server, outcome)),
    });
    teardown.add(() => core.close());
    const metrics = buildMetrics(config, { core, queue, runs });
    timings.push((s, k) => metrics.observeModelRequest(s, k));
    mcpCalls.push((server, outcome) => metrics.countMcpCall(server, outcome));

    const logChannel = new LogChannelPosts(logger);
    const rules = buildRules(config, { storage, core, knowledge, threads, logChannel, now, logger });
    const audit = auditWriter(rules, logger);
    const skills = await openAppSkills(config, { storage, rules, builtIns: commands.map((c) => c.data.name), cdnOrigins: overrides.knowledge?.cdnOrigins, logger });
    const turns = buildTurns(config, { core, storage, limiter, rules, queue, runs, threads, audit, metrics, tracer, now, logger }, overrides);

    // Scheduled questions: each occurrence claimed once in the shared storage, then run as its owner's turn.
    const scheduleClaims = await storage.openScheduleClaims();
    const clock = overrides.schedulerClock ?? systemClock;
    const scheduleRunner = createScheduleRunner({
      turns, rules, skills: skills.catalog, schedules: storage.schedules, conversations: storage.conversations, audit,
      graceMinutes: config.schedules.graceMinutes, logger, now: () => clock.now(),
    });
    // A schedule changed by a command: the scheduler (made once the bot is connected) looks again at once.
    const scheduleChanges: Array<() => void> = [];

    const services: BotServices = {
      turns: {
        ...turns,
        runs,
        queue,
        conversations: storage.conversations,
        claims: new OneTimeClaims(),
        pendingAsks: new PendingAsks({ now: () => now().getTime() }),
        memory: { store: storage.memberMemory, threads: threads?.index },
        feedback: storage.feedback,
      },
      rules: {
        ...rules,
        // A getter: MCP servers add and change tools while the bot runs.
        get tools() {
          return core.engine.tools;
        },
        serverModels: core.serverModels,
        outside: { refused: () => core.mcp.refused(), blocked: () => core.mcp.blocked(), protection: () => core.mcp.protection() },
        skills,
      },
      usage: { limiter, defaultLimits: config.governance.limits },
      knowledge: knowledge?.services,
      runtime: { logger, now, messageContent: discord.messageContent, replyChainMax: config.governance.replyChainMax },
      schedules: {
        store: storage.schedules,
        caps: { perServer: config.schedules.perServer, perMember: config.schedules.perMember, minIntervalMinutes: config.schedules.minIntervalMinutes },
        graceMinutes: config.schedules.graceMinutes,
        now: () => clock.now(),
        marks: (keys) => scheduleClaims.marks(keys),
        forget: (key) => scheduleClaims.forget(key),
        runNow: (client, schedule, placed) => scheduleRunner.run(client, { schedule, manual: true }, placed),
        changed: () => scheduleChanges.forEach((look) => look()),
      },
    };

    // Up before the gateway connects, so /healthz answers and /readyz says why it is not ready yet.
    let bot: RunningBot | undefined;
    const health =
      config.ops.healthPort === undefined
        ? undefined
        : await startHealthServer({
            host: config.ops.healthHost,
            port: config.ops.healthPort === 0 ? 0 : config.ops.healthPort + (config.ops.shard?.id ?? 0),
            metrics,
            checks: {
              gateway: () => {
                if (!bot?.gatewayReady()) throw new Error(bot ? 'not connected to Discord (reconnecting, or closed)' : 'connecting to Discord');
              },
              storage: () => storage.ping(),
              ...scale.checks,
            },
          });
    teardown.add(() => health?.close());
    bot = await startBot(services, {
      token: discord.token,
      apiBaseUrl: discord.apiBaseUrl,
      interactions,
      onAcknowledged: (kind, seconds) => metrics.observeAcknowledgement(kind, seconds),
      client: scale.client,
      sweepWaitingEveryMs: sweepEvery(config.agent.approvalTimeoutMs),
      directMessages: config.governance.allowDms,
      // Every change a command makes is posted to the log channel through the rules object, with this client.
      onClient: (client) => logChannel.connected(client),
    });
    const running = bot;
    const scheduler = createScheduler({
      store: storage.schedules,
      claims: scheduleClaims,
      clock,
      // A guild's schedules run on the process (shard) that holds it.
      heldGuilds: () => [...running.client.guilds.cache.keys()],
      graceMs: config.schedules.graceMinutes * 60_000,
      launch: (due) => scheduleRunner.run(running.client, due),
      logger,
    });
    scheduleChanges.push(() => scheduler.changed());
    // Ready: the first tick runs what was missed while the bot was down (within the grace period).
    const scheduled = scheduler.start();
    // In the background: the bot answers at once; runs that start meanwhile are journaled after it.
    const recovered = journal.recover(restRecoveryActions(running.client));
    // In the background too: each guild's skill commands, and those of a guild the bot joins later.
    const skillsSynced = skills.reconcile(running.client).catch((error) => logger.warn({ err: error }, 'could not check the skill commands at start-up'));
    running.client.on(Events.GuildCreate, (guild) => void skills.reconcile(running.client, [guild.id]).catch(() => undefined));
    // The web console, over the same rules, usage, schedules and pipeline (off unless CONSOLE_PORT is set).
    const consoleServer = await openConsole(config, {
      storage, rules: services.rules, limiter, discord: clientDiscord(running.client), messageContent: discord.messageContent, logger, now,
      schedules: { ...services.schedules, rules, logger },
      live: { turns, client: () => running.client },
    }).catch(async (error: unknown) => {
      // Its port taken, say: the bot is already connected, so it stops before the rest is torn down.
      scheduler.stop();
      await running.stop();
      throw error;
    });
    teardown.add(() => consoleServer?.close());
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
      skillsSynced,
      console: consoleServer,
      async stop() {
        scheduler.stop();
        await running.stop();
        // The interrupted runs' last entries go out before the storage closes.
        await journal.flush();
        await teardown.run();
      },
    };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}
