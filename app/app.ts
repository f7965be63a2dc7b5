/**
 * The composition root: the only place that knows every part. It wires them, in the order they need
 * each other, each built by a factory (parts.ts, core-parts.ts, schedules.ts, services.ts, health.ts,
 * and one file per feature that has its own: knowledge, memory, skills, the console) from the
 * configuration, and decides nothing itself. `npm start` runs it as a process; the end-to-end tests start
 * the same thing against the fake Discord and the fake model server, with a few `AppOverrides`.
 */
import { Events } from 'discord.js';
import { commands, interactions } from '../commands/index.js';
import type { Config } from '../src/config.js';
import type { CoreOverrides } from '../src/core.js';
import { clientDiscord } from '../src/console/discord-reads.js';
import type { RunningConsole } from '../src/console/server.js';
import { startBot, type RunningBot } from '../src/discord/bot.js';
import { restRecoveryActions } from '../src/discord/runs/journal-discord.js';
import type { Scheduler, SchedulerClock, TickReport } from '../src/discord/schedules/scheduler.js';
import type { BotServices } from '../src/discord/services.js';
import { sweepEvery } from '../src/discord/turn/waiting-turns.js';
import type { Logger } from '../src/logger.js';
import type { HealthServer } from '../src/ops/health-server.js';
import type { Metrics } from '../src/ops/metrics.js';
import { createStorage, ThreadQueue, type Storage, type StorageEvent, type ThreadQueueOptions } from '../src/state/index.js';
import { openConsole } from './console.js';
import { openCore } from './core-parts.js';
import { openHealth } from './health.js';
import { openAppKnowledge, type AppKnowledge, type KnowledgeOverrides } from './knowledge.js';
import { openAppThreads } from './memory.js';
import { auditWriter, buildRules, buildTurns, LogChannelPosts, openRuns, Teardown, type TurnOverrides } from './parts.js';
import { scaleParts } from './scale.js';
import { openSchedules } from './schedules.js';
import { assembleServices } from './services.js';
import { openAppSkills } from './skills.js';
import { startTelemetry } from './telemetry.js';

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
    const { core, metrics } = await openCore(config, { storage, knowledge, threads, limiter, queue, runs, tracer, logger }, overrides);
    teardown.add(() => core.close());

    const logChannel = new LogChannelPosts(logger);
    const rules = buildRules(config, { storage, core, knowledge, threads, logChannel, now, logger });
    const audit = auditWriter(rules, logger);
    const skills = await openAppSkills(config, { storage, rules, builtIns: commands.map((c) => c.data.name), cdnOrigins: overrides.knowledge?.cdnOrigins, logger });
    const turns = buildTurns(config, { core, storage, limiter, rules, queue, runs, threads, audit, metrics, tracer, now, logger }, overrides);
    const schedules = await openSchedules(config, { turns, rules, skills: skills.catalog, audit, storage, logger, clock: overrides.schedulerClock });
    const services = assembleServices(config, { core, storage, turns, runs, queue, threads, rules, skills, limiter, knowledge, schedules: schedules.services, logger, now });

    let bot: RunningBot | undefined;
    const health = await openHealth(config, { metrics, storage, scale, bot: () => bot });
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
    // Ready: the scheduler's first tick runs what was missed while the bot was down (within the grace period).
    const { scheduler, scheduled } = schedules.start(running.client);
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
    const stop = async () => {
      scheduler.stop();
      await running.stop();
      // The interrupted runs' last entries go out before the storage closes.
      await journal.flush();
      await teardown.run();
    };
    return { bot: running, services, storage, metrics, health, knowledge, scheduler, scheduled, recovered, skillsSynced, console: consoleServer, stop };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}
