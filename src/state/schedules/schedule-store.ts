/**
 * Scheduled questions, one Keyv record per guild. Changes are serialized per guild in this process,
 * which is the only writer: a guild's interactions, and its scheduler, are on the process (shard) that
 * holds it, like its settings. The caller's caps are checked inside that serialized change, so two
 * `/schedule add` at once cannot both take the last place. A record that cannot be read is set aside under a
 * quarantine key and reported, and the guild has no schedules until someone adds one.
 */
import { randomInt } from 'node:crypto';
import type { Backend } from '../../storage/registry.js';
import { storageFailure } from '../../storage/storage-failure.js';
import { KeyedSerializer } from '../../storage/keyed-serializer.js';
import type { StorageLogger } from '../types.js';
import { GuildSchedulesSchema, type NewSchedule, type Schedule } from './schedule-schema.js';

/** A new schedule saved, or why not (what the caller's check said). */
export type AddResult<R> = { ok: true; schedule: Schedule } | { ok: false; refused: R };

export interface ScheduleStore {
  /** A guild's schedules, oldest first. */
  list(guildId: string): Promise<Schedule[]>;
  /** Several guilds' schedules in one round trip (the scheduler's tick); guilds without any are left out. */
  listMany(guildIds: readonly string[]): Promise<Map<string, Schedule[]>>;
  /**
   * Save a new schedule unless `check` refuses it, given the guild's schedules as they are inside the
   * serialized change (the caller's caps, so two adds at once cannot both take the last place).
   */
  add<R>(draft: NewSchedule, check: (existing: readonly Schedule[]) => R | undefined): Promise<AddResult<R>>;
  /** Change one schedule (`change` gets a copy); the saved schedule, or undefined if there is no such one. */
  update(guildId: string, id: string, change: (schedule: Schedule) => Schedule): Promise<Schedule | undefined>;
  /** Remove one schedule; what was removed, or undefined. */
  remove(guildId: string, id: string): Promise<Schedule | undefined>;
}

export interface ScheduleStoreOptions {
  backend: Backend;
  namespace: string;
  now: () => Date;
  logger: StorageLogger;
}

const ID_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

export function createScheduleStore(options: ScheduleStoreOptions): ScheduleStore {
  const { backend, namespace, now, logger } = options;
  const serial = new KeyedSerializer();
  const keyOf = (guildId: string) => `${namespace}:schedules:${guildId}`;
  const guard = <T>(action: string, call: () => Promise<T>) =>
    call().catch((error: unknown) => {
      throw storageFailure(backend.kind, backend.where, action, error);
    });

  async function parse(guildId: string, value: unknown): Promise<Schedule[]> {
    if (value === undefined || value === null) return [];
    const parsed = GuildSchedulesSchema.safeParse(value);
    if (parsed.success) return parsed.data.schedules;
    const quarantineKey = `${namespace}:quarantine:schedules:${guildId}:${now().getTime()}`;
    await backend.keyv.set(quarantineKey, { guildId, raw: JSON.stringify(value) });
    await backend.keyv.delete(keyOf(guildId));
    logger({ level: 'warn', code: 'corrupt-record', guildId, quarantineKey, message: `The schedules of guild ${guildId} could not be read; they were set aside under ${quarantineKey}.` });
    return [];
  }
  const read = async (guildId: string) => parse(guildId, await backend.keyv.get(keyOf(guildId)));
  const write = (guildId: string, schedules: Schedule[]) =>
    schedules.length ? backend.keyv.set(keyOf(guildId), { v: 1, schedules }) : backend.keyv.delete(keyOf(guildId)).then(() => true);

  /** Read, change and write one guild's list under its lock. */
  function change<T>(guildId: string, action: string, edit: (list: Schedule[]) => { list?: Schedule[]; result: T }): Promise<T> {
    return serial.run(guildId, () =>
      guard(`${action} a schedule of guild ${guildId}`, async () => {
        const { list, result } = edit(await read(guildId));
        if (list) await write(guildId, list);
        return result;
      }),
    );
  }

  return {
    list: (guildId) => guard(`reading the schedules of guild ${guildId}`, () => read(guildId)),
    listMany: (guildIds) =>
      guard('reading schedules', async () => {
        const found = new Map<string, Schedule[]>();
        if (guildIds.length === 0) return found;
        const values = await backend.keyv.getMany(guildIds.map(keyOf));
        for (let i = 0; i < guildIds.length; i++) {
          if (values[i] === undefined) continue;
          const list = await parse(guildIds[i]!, values[i]);
          if (list.length) found.set(guildIds[i]!, list);
        }
        return found;
      }),
    add: <R>(draft: NewSchedule, check: (existing: readonly Schedule[]) => R | undefined) =>
      change(draft.guildId, 'adding', (list): { list?: Schedule[]; result: AddResult<R> } => {
        const refused = check(list);
        if (refused !== undefined) return { result: { ok: false, refused } };
        const taken = new Set(list.map((s) => s.id));
        let id = '';
        do id = Array.from({ length: 5 }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join('');
        while (taken.has(id));
        const schedule: Schedule = { ...draft, id };
        return { list: [...list, schedule], result: { ok: true, schedule } };
      }),
    update: (guildId, id, edit) =>
      change(guildId, 'changing', (list) => {
        const index = list.findIndex((s) => s.id === id);
        if (index < 0) return { result: undefined };
        const next = { ...edit(structuredClone(list[index]!)), id, guildId };
        return { list: list.map((s, i) => (i === index ? next : s)), result: next };
      }),
    remove: (guildId, id) =>
      change(guildId, 'removing', (list) => {
        const found = list.find((s) => s.id === id);
        return found ? { list: list.filter((s) => s !== found), result: found } : { result: undefined };
      }),
  };
}
