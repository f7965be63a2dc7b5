/**
 * The skills' guild commands, registered by the bot itself for each guild it holds, through its
 * discord.js REST (so through the REST proxy when there is one). A guild's commands are compared with
 * what it should have and only the difference is sent: a first look is one GET (kept, then updated from
 * each answer), a new skill one POST, a changed description or input list one PATCH, a removed skill
 * one DELETE, an edit of the instructions alone nothing. Many changes at once (start-up after skills
 * changed elsewhere, skills switched back on) go as one PUT of the union, so the built-in commands
 * deployed to the guild (`npm run deploy-commands` with DISCORD_GUILD_ID) are sent back as they are:
 * nothing here ever wipes them. The bot owns the guild's other chat-input commands: one that is not a
 * built-in nor a current skill is a skill's left over, and is deleted.
 *
 * Within Discord's limits: at most 100 chat-input commands in a guild (built-ins deployed there count),
 * each at most 8,000 characters. A skill past the room, oldest first, gets no command of its own and
 * says so (`/skill run` still runs it).
 */
import { Routes, type Client } from 'discord.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { SkillAccess } from '../../policy/index.js';
import { KeyedSerializer } from '../../storage/keyed-serializer.js';
import { discordCode } from '../posting/permissions.js';
import type { SkillCatalog } from './skill-catalog.js';
import { commandBody, commandSize, COMMAND_SIZE_LIMIT, GUILD_COMMAND_LIMIT, sameCommand, type CommandBody } from './skill-command-body.js';

/** Why a skill has no command of its own. */
export type NoCommand = 'no-room' | 'too-large' | 'off' | 'failed';

/** What a guild's skills got from one sync, and the REST calls it made. */
export interface SyncReport {
  registered: ReadonlySet<string>;
  without: ReadonlyMap<string, NoCommand>;
  calls: number;
  /** What went wrong talking to Discord, if anything (the skills still run with `/skill run`). */
  error?: string;
}

export interface SkillCommands {
  /** Bring a guild's skill commands in line with its skills now. Never throws. */
  sync(client: Client, guildId: string): Promise<SyncReport>;
  /** Whether a skill has its own command, as of the guild's last sync (undefined: not synced yet). */
  has(guildId: string, name: string): boolean | undefined;
}

export interface SkillCommandsDeps {
  catalog: Pick<SkillCatalog, 'list'>;
  /** The bot's own commands: never a skill's, never deleted. */
  builtIns: ReadonlySet<string>;
  /** Who may write skills in a guild (`off`: no skill commands there); undefined when it cannot be read. */
  access(guildId: string): Promise<SkillAccess | undefined>;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/** A command as the guild has it: its id, and its JSON as Discord gave it. */
type Registered = Record<string, unknown> & { id: string; name: string; type: number };

/** Past this many single changes, one PUT of the union is fewer requests. */
const BULK_AFTER = 3;
/** Discord's answer to the 101st command (and to a bulk overwrite past 100). */
const MAX_COMMANDS = 30032;
const UNKNOWN_COMMAND = 10063;
/** What Discord adds to a command that it does not take back in a bulk overwrite. */
const READ_ONLY = ['application_id', 'guild_id', 'version', 'name_localized', 'description_localized'];

/**
 * The commands of a guild that a deploy of the built-ins (`body`) sends back beside them: its skills'
 * (chat-input commands that are no built-in), as Discord gave them, oldest first, within the 100.
 */
export function keptSkillCommands(existing: ReadonlyArray<Record<string, unknown>>, body: ReadonlyArray<{ name: string; type?: number }>): Array<Record<string, unknown>> {
  const builtIns = new Set(body.map((b) => b.name));
  const room = GUILD_COMMAND_LIMIT - body.filter((b) => (b.type ?? 1) === 1).length;
  return existing
    .filter((c) => c.type === 1 && !builtIns.has(String(c.name)))
    .slice(0, Math.max(0, room))
    .map((c) => Object.fromEntries(Object.entries(c).filter(([k]) => !READ_ONLY.includes(k))));
}

export function createSkillCommands(deps: SkillCommandsDeps): SkillCommands {
  const known = new Map<string, Map<string, Registered>>();
  const status = new Map<string, ReadonlySet<string>>();
  const serial = new KeyedSerializer();

  async function syncNow(client: Client, guildId: string, retry = true): Promise<SyncReport> {
    const rest = client.rest;
    const appId = client.application?.id ?? client.user?.id ?? '';
    const route = Routes.applicationGuildCommands(appId, guildId);
    let calls = 0;
    const access = await deps.access(guildId);
    // Storage not answering: change nothing rather than take commands away on a guess.
    if (!access) return { registered: status.get(guildId) ?? new Set(), without: new Map(), calls, error: 'I could not read the skill settings (my storage is not answering).' };
    const skills = access === 'off' ? [] : await deps.catalog.list(guildId);
    let current = known.get(guildId);
    if (!current) {
      const listed = (await rest.get(route, { query: new URLSearchParams({ with_localizations: 'true' }) })) as Registered[];
      calls++;
      current = new Map(listed.map((c) => [`${c.type}:${c.name}`, c]));
      known.set(guildId, current);
    }
    const ours = (c: Registered) => c.type === 1 && !deps.builtIns.has(c.name);
    const others = [...current.values()].filter((c) => !ours(c));
    const room = GUILD_COMMAND_LIMIT - others.filter((c) => c.type === 1).length;
    const wanted: CommandBody[] = [];
    const without = new Map<string, NoCommand>();
    for (const skill of skills) {
      const body = commandBody(skill);
      if (access === 'off') without.set(skill.name, 'off');
      else if (commandSize(body) > COMMAND_SIZE_LIMIT) without.set(skill.name, 'too-large');
      else if (wanted.length >= room) without.set(skill.name, 'no-room');
      else wanted.push(body);
    }
    const names = new Set(wanted.map((w) => w.name));
    const removed = [...current.values()].filter((c) => ours(c) && !names.has(c.name));
    const changed = wanted.filter((w) => current.has(`1:${w.name}`) && !sameCommand(current.get(`1:${w.name}`)!, w));
    const added = wanted.filter((w) => !current.has(`1:${w.name}`));
    const registered = new Set(names);
    const report = (error?: string): SyncReport => {
      status.set(guildId, registered);
      return { registered, without, calls, ...(error ? { error } : {}) };
    };
    try {
      if (removed.length + changed.length + added.length > BULK_AFTER) {
        // One request for all: the built-ins deployed here go back as Discord gave them.
        const union = [...others.map((c) => Object.fromEntries(Object.entries(c).filter(([k]) => !READ_ONLY.includes(k)))), ...wanted];
        const saved = (await rest.put(route, { body: union })) as Registered[];
        calls++;
        known.set(guildId, new Map(saved.map((c) => [`${c.type}:${c.name}`, c])));
        return report();
      }
      for (const gone of removed) {
        calls++;
        await rest.delete(Routes.applicationGuildCommand(appId, guildId, gone.id));
        current.delete(`1:${gone.name}`);
      }
      for (const body of changed) {
        calls++;
        const saved = (await rest.patch(Routes.applicationGuildCommand(appId, guildId, current.get(`1:${body.name}`)!.id), { body })) as Registered;
        current.set(`1:${body.name}`, saved);
      }
      for (const body of added) {
        calls++;
        const saved = (await rest.post(route, { body })) as Registered;
        current.set(`1:${body.name}`, saved);
      }
      return report();
    } catch (error) {
      // What Discord has is no longer known for sure: the next sync looks again.
      known.delete(guildId);
      const code = discordCode(error);
      if (code === UNKNOWN_COMMAND && retry) return syncNow(client, guildId, false);
      for (const body of [...added, ...changed]) {
        registered.delete(body.name);
        without.set(body.name, code === MAX_COMMANDS ? 'no-room' : 'failed');
      }
      deps.logger.warn({ err: error, guildId }, 'could not register the skill commands of a guild');
      return report(code === MAX_COMMANDS ? undefined : `Discord refused the skill commands (${describeError(error)}).`);
    }
  }

  return {
    sync: (client, guildId) =>
      serial.run(guildId, () => syncNow(client, guildId)).catch((error: unknown) => {
        deps.logger.warn({ err: error, guildId }, 'could not bring the skill commands of a guild up to date');
        return { registered: status.get(guildId) ?? new Set<string>(), without: new Map<string, NoCommand>(), calls: 0, error: describeError(error) };
      }),
    has: (guildId, name) => status.get(guildId)?.has(name),
  };
}
