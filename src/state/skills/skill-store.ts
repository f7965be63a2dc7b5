/**
 * Each guild's skills, one Keyv record per guild on the key-value backend (like schedules): changes are
 * serialized per guild in this process, the only writer for a guild (its interactions are on the shard
 * that holds it). The caller's cap is checked inside the serialized change, so two creates at once
 * cannot both take the last place. Every change keeps the previous version (the newest 20). A record
 * that cannot be read is set aside under a quarantine key and reported. Beside them, which skill each
 * skill thread runs.
 */
import type { Backend } from '../../storage/registry.js';
import { storageFailure } from '../../storage/storage-failure.js';
import { KeyedSerializer } from '../../storage/keyed-serializer.js';
import type { StorageLogger } from '../types.js';
import { SKILL_REVISIONS_KEPT } from '../../skills/skill-rules.js';
import type { SkillRun } from '../../skills/skill-run.js';
import { GuildSkillsSchema, ThreadSkillSchema, type Skill, type SkillRevision } from './skill-schema.js';

/** What a new revision says; the store numbers it. */
export interface RevisionDraft {
  description: string;
  instructions: string;
  inputs: string[];
  tools: string[];
  authorId: string;
  authorName: string;
  at: number;
  note?: string;
}

type Created<R> = { ok: true; skill: Skill } | { ok: false; refused: R };

export interface SkillStore {
  /** A guild's skills, oldest first. */
  list(guildId: string): Promise<Skill[]>;
  /** Of these guilds, those that have (or had) skills: start-up checks their commands. */
  guildsWithSkills(guildIds: readonly string[]): Promise<string[]>;
  /** Save a new skill unless `check` refuses, given the guild's skills inside the serialized change. */
  create<R>(guildId: string, skill: { name: string; ownerId: string; first: RevisionDraft }, check: (existing: readonly Skill[]) => R | undefined): Promise<Created<R>>;
  /** Add a revision (the next number; the newest 20 kept); undefined when there is no such skill. */
  revise(guildId: string, name: string, revision: RevisionDraft): Promise<Skill | undefined>;
  /** Who may run it (roles; empty: everyone). */
  setRoles(guildId: string, name: string, roles: readonly string[]): Promise<Skill | undefined>;
  remove(guildId: string, name: string): Promise<Skill | undefined>;
  /** The skill a thread runs, if it is a skill's thread. */
  threadSkill(threadId: string): Promise<{ guildId: string; run: SkillRun } | undefined>;
  rememberThread(threadId: string, guildId: string, run: SkillRun): Promise<void>;
}

export function createSkillStore(options: { backend: Backend; namespace: string; now: () => Date; logger: StorageLogger }): SkillStore {
  const { backend, namespace, now, logger } = options;
  const serial = new KeyedSerializer();
  const keyOf = (guildId: string) => `${namespace}:skills:${guildId}`;
  const threadKey = (threadId: string) => `${namespace}:skill-thread:${threadId}`;
  const guard = <T>(action: string, call: () => Promise<T>) =>
    call().catch((error: unknown) => {
      throw storageFailure(backend.kind, backend.where, action, error);
    });

  async function parse(guildId: string, value: unknown): Promise<Skill[]> {
    if (value === undefined || value === null) return [];
    const parsed = GuildSkillsSchema.safeParse(value);
    if (parsed.success) return parsed.data.skills;
    const quarantineKey = `${namespace}:quarantine:skills:${guildId}:${now().getTime()}`;
    await backend.keyv.set(quarantineKey, { guildId, raw: JSON.stringify(value) });
    await backend.keyv.delete(keyOf(guildId));
    logger({ level: 'warn', code: 'corrupt-record', guildId, quarantineKey, message: `The skills of guild ${guildId} could not be read; they were set aside under ${quarantineKey}.` });
    return [];
  }
  const read = async (guildId: string) => parse(guildId, await backend.keyv.get(keyOf(guildId)));

  /** Read, change and write one guild's skills under its lock. */
  function change<T>(guildId: string, action: string, edit: (skills: Skill[]) => { skills?: Skill[]; result: T }): Promise<T> {
    return serial.run(guildId, () =>
      guard(`${action} a skill of guild ${guildId}`, async () => {
        const { skills, result } = edit(await read(guildId));
        if (skills) await backend.keyv.set(keyOf(guildId), { v: 1, skills });
        return result;
      }),
    );
  }
  /** One skill changed by `edit`, or undefined when there is none of that name. */
  const update = (guildId: string, name: string, action: string, edit: (skill: Skill) => Skill) =>
    change(guildId, action, (skills) => {
      const index = skills.findIndex((s) => s.name === name);
      if (index < 0) return { result: undefined };
      const next = edit(structuredClone(skills[index]!));
      return { skills: skills.map((s, i) => (i === index ? next : s)), result: next };
    });

  return {
    list: (guildId) => guard(`reading the skills of guild ${guildId}`, () => read(guildId)),
    guildsWithSkills: (guildIds) =>
      guard('reading which guilds have skills', async () => {
        if (guildIds.length === 0) return [];
        const values = await backend.keyv.getMany(guildIds.map(keyOf));
        return guildIds.filter((_, i) => values[i] !== undefined && values[i] !== null);
      }),
    create: <R>(guildId: string, { name, ownerId, first }: { name: string; ownerId: string; first: RevisionDraft }, check: (existing: readonly Skill[]) => R | undefined) =>
      change(guildId, 'adding', (skills): { skills?: Skill[]; result: Created<R> } => {
        const refused = check(skills);
        if (refused !== undefined) return { result: { ok: false, refused } };
        const skill: Skill = { name, ownerId, createdAt: first.at, roles: [], revisions: [{ ...first, n: 1 }] };
        return { skills: [...skills, skill], result: { ok: true, skill } };
      }),
    revise: (guildId, name, revision) =>
      update(guildId, name, 'changing', (skill) => {
        const next: SkillRevision = { ...revision, n: (skill.revisions.at(-1)?.n ?? 0) + 1 };
        return { ...skill, revisions: [...skill.revisions, next].slice(-SKILL_REVISIONS_KEPT) };
      }),
    setRoles: (guildId, name, roles) => update(guildId, name, 'changing', (skill) => ({ ...skill, roles: [...new Set(roles)] })),
    remove: (guildId, name) =>
      change(guildId, 'removing', (skills) => {
        const found = skills.find((s) => s.name === name);
        return found ? { skills: skills.filter((s) => s !== found), result: found } : { result: undefined };
      }),
    threadSkill: (threadId) =>
      guard(`reading the skill of thread ${threadId}`, async () => {
        const parsed = ThreadSkillSchema.safeParse(await backend.keyv.get(threadKey(threadId)));
        return parsed.success ? { guildId: parsed.data.guildId, run: parsed.data.run } : undefined;
      }),
    rememberThread: (threadId, guildId, run) =>
      guard(`saving the skill of thread ${threadId}`, async () => {
        await backend.keyv.set(threadKey(threadId), { v: 1, guildId, run });
      }),
  };
}
