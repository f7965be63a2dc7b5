/**
 * Scheduled questions, wired: each occurrence claimed once in the shared storage, then run as its owner's
 * turn through the pipeline. The runner exists from the start (`/schedule run` runs one by hand); the
 * scheduler only once the bot is connected, since it runs the schedules of the guilds this process holds.
 */
import type { Client } from 'discord.js';
import type { Config } from '../src/config.js';
import { createScheduleRunner, type RunnerDeps } from '../src/discord/schedules/schedule-runner.js';
import { createScheduler, systemClock, type Scheduler, type SchedulerClock, type TickReport } from '../src/discord/schedules/scheduler.js';
import type { ScheduleServices } from '../src/discord/services.js';
import type { Logger } from '../src/logger.js';
import type { Storage } from '../src/state/index.js';

export interface ScheduleParts extends Pick<RunnerDeps, 'turns' | 'rules' | 'skills' | 'audit'> {
  storage: Storage;
  logger: Logger;
  /** The scheduler's clock (tests move it by hand); the system clock by default. */
  clock?: SchedulerClock;
}

export interface AppSchedules {
  /** What commands use: the store, the caps, running one now, the scheduler told of a change. */
  services: ScheduleServices;
  /** Start the scheduler on the connected client; its first tick runs what was missed while the bot was down. */
  start(client: Client): { scheduler: Scheduler; scheduled: Promise<TickReport> };
}

export async function openSchedules(config: Config, parts: ScheduleParts): Promise<AppSchedules> {
  const { storage, logger } = parts;
  const claims = await storage.openScheduleClaims();
  const clock = parts.clock ?? systemClock;
  const runner = createScheduleRunner({
    turns: parts.turns, rules: parts.rules, skills: parts.skills, audit: parts.audit,
    schedules: storage.schedules, conversations: storage.conversations,
    graceMinutes: config.schedules.graceMinutes, logger, now: () => clock.now(),
  });
  // A schedule changed by a command: the scheduler (made once the bot is connected) looks again at once.
  let scheduler: Scheduler | undefined;
  const services: ScheduleServices = {
    store: storage.schedules,
    caps: { perServer: config.schedules.perServer, perMember: config.schedules.perMember, minIntervalMinutes: config.schedules.minIntervalMinutes },
    graceMinutes: config.schedules.graceMinutes,
    now: () => clock.now(),
    marks: (keys) => claims.marks(keys),
    forget: (key) => claims.forget(key),
    runNow: (client, schedule, placed) => runner.run(client, { schedule, manual: true }, placed),
    changed: () => scheduler?.changed(),
  };
  return {
    services,
    start(client) {
      scheduler = createScheduler({
        store: storage.schedules,
        claims,
        clock,
        // A guild's schedules run on the process (shard) that holds it.
        heldGuilds: () => [...client.guilds.cache.keys()],
        graceMs: config.schedules.graceMinutes * 60_000,
        launch: (due) => runner.run(client, due),
        logger,
      });
      return { scheduler, scheduled: scheduler.start() };
    },
  };
}
