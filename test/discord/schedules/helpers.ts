/**
 * A bot with scheduled questions for end-to-end tests: the harness (production defaults, the real
 * discord.js client against the fake Discord) with a hand-moved scheduler clock, a moderator, and
 * helpers to add a schedule through `/schedule add` and to move the clock and let the runs finish.
 */
import type { FakeDiscord, FakeMessage } from '../../fake-discord/index.js';
import { command, startModeration, sub, type ModerationWorld } from '../../policy/discord-helpers.js';
import type { HarnessOptions } from '../harness.js';
import type { TickReport } from '../../../src/discord/schedules/scheduler.js';
import type { Schedule } from '../../../src/state/index.js';
import { manualClock, type ManualClock } from './manual-clock.js';

export const MIN = 60_000;
/** Monday 3 March 2025, 08:00 UTC. */
export const T0 = Date.UTC(2025, 2, 3, 8, 0);

export interface ScheduledWorld extends ModerationWorld {
  clock: ManualClock;
}

export async function startScheduled(options: HarnessOptions & { startMs?: number } = {}): Promise<ScheduledWorld> {
  const clock = manualClock(options.startMs ?? T0 - 30_000);
  const world = await startModeration({ ...options, schedulerClock: clock });
  return { ...world, clock };
}

/** `/schedule <subcommand>` by a member; its final private reply. */
export function schedule(w: ScheduledWorld, subcommand: string, options: Record<string, string>, userId: string): Promise<FakeMessage> {
  return command(w.fake, 'schedule', sub(subcommand, options), { userId });
}

/** `/schedule add`, and the schedule it saved (the id from the reply). */
export async function addSchedule(w: ScheduledWorld, options: Record<string, string>, userId: string): Promise<{ reply: FakeMessage; saved: Schedule }> {
  const reply = await schedule(w, 'add', options, userId);
  const id = /Scheduled `([a-z0-9]+)`/.exec(reply.content)?.[1];
  if (!id) throw new Error(`no schedule was added: ${reply.content}`);
  const saved = (await w.h.storage.schedules.list(w.guildId)).find((s) => s.id === id)!;
  return { reply, saved };
}

/** Move the clock to `ms`, tick, and wait until every run the tick started has ended. */
export async function tickAt(w: ScheduledWorld, ms: number): Promise<TickReport> {
  w.clock.set(ms);
  const report = await w.h.app.scheduler.tick();
  await w.h.app.scheduler.idle();
  return report;
}

/** The names of the tools the model was offered in request `index`. */
export function offered(w: ScheduledWorld, index: number): string[] {
  return (w.model.requests[index]!.body.tools ?? []).map((t) => t.function.name);
}

/** The bot threads opened in a channel, oldest first. */
export function threads(fake: FakeDiscord, channelId: string) {
  return fake.threadsIn(channelId);
}
