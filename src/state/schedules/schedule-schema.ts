/**
 * The shape of scheduled questions as stored: one record per guild holding its schedules (a server has
 * at most a few dozen, so a record stays small and one read gives the scheduler a whole guild). Loose
 * objects, so a newer version's fields survive an older one's write.
 */
import { z } from 'zod';

/** Why and by whom a schedule was paused. */
export const PauseSchema = z.looseObject({
  at: z.number(),
  reason: z.string().max(500),
  /** Who paused it: a member (`/schedule pause`), or the bot itself when a run could not happen. */
  byId: z.string().optional(),
  byName: z.string().optional(),
  /** True when the bot paused it because a run could not happen. */
  auto: z.boolean().optional(),
});

/** One scheduled question. */
export const ScheduleSchema = z.looseObject({
  /** Short, unique in its server (what `/schedule pause` and friends take). */
  id: z.string().regex(/^[a-z0-9]{4,16}$/),
  guildId: z.string(),
  /** The channel its runs post in (their threads open there). */
  channelId: z.string(),
  /** The member whose question it is: each run is theirs, with their rights and limits at run time. */
  ownerId: z.string(),
  ownerName: z.string().max(100).optional(),
  question: z.string().min(1).max(4_000),
  /** `when` as the member typed it, and what it was read as. */
  when: z.string().max(200),
  cron: z.string().max(200),
  timeZone: z.string().max(64),
  description: z.string().max(300),
  /** A new thread per run, or one thread for all runs (`threadId`, once the first run opened it). */
  thread: z.enum(['new', 'same']),
  threadId: z.string().optional(),
  createdAt: z.number(),
  /** Since when occurrences count: its creation, or its last resume (a paused schedule's missed runs are not "skipped"). */
  activeSince: z.number(),
  paused: PauseSchema.optional(),
  /** The skill it runs instead of a question (`/schedule add skill: inputs:`); `question` then reads as its run. */
  skill: z.looseObject({ name: z.string(), inputs: z.array(z.string()) }).optional(),
});

/** A guild's schedules record. */
export const GuildSchedulesSchema = z.looseObject({
  v: z.number().int().default(1),
  schedules: z.array(ScheduleSchema).default([]),
});

/** @see ScheduleSchema */
export type Schedule = z.infer<typeof ScheduleSchema>;
/** @see PauseSchema */
export type SchedulePause = z.infer<typeof PauseSchema>;
/** What `/schedule add` gives the store: everything but the id, which the store picks. */
export const NewScheduleSchema = ScheduleSchema.omit({ id: true });
/** @see NewScheduleSchema */
export type NewSchedule = z.infer<typeof NewScheduleSchema>;
