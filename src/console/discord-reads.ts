/**
 * What the console asks of Discord with the bot's token: a server (its name, owner and roles with their
 * permissions), its channels, and a member with their roles. The member is always asked of Discord at
 * the moment (GET guild member): someone who left or lost a role is refused at their next request,
 * whatever their sign-in said. In the bot's process the server and its channels come from the client's
 * cache, which the gateway keeps current; in a console of its own they are asked too, through
 * @discordjs/rest (and the REST proxy when one is set), so the bot's rate limit is shared either way.
 */
// From discord.js, not @discordjs/rest directly: the client's REST is that (CommonJS) copy, and errors must be its class.
import { DiscordAPIError, type REST } from 'discord.js';
import { ChannelType, Routes, type APIChannel, type APIGuild, type APIGuildMember, type Client } from 'discord.js';

/** A role as rights are computed from it. */
export interface RoleInfo {
  id: string;
  name: string;
  permissions: bigint;
  position: number;
}

/** A server as the console shows it and checks rights in it. */
export interface GuildInfo {
  id: string;
  name: string;
  ownerId: string;
  roles: RoleInfo[];
}

/** A channel or category rules and settings can name. */
export interface ChannelInfo {
  id: string;
  name: string;
  kind: 'text' | 'forum' | 'category';
  parentId: string | null;
  position: number;
}

/** A member now: their roles and the name the server shows. */
export interface MemberInfo {
  roles: string[];
  name?: string;
}

export interface ConsoleDiscord {
  /**
   * The servers the bot is in. Asked first, so the console never asks Discord about a server the bot is
   * not in (each such call would be refused, and Discord bans an address after too many refusals).
   */
  botGuildIds(): Promise<ReadonlySet<string>>;
  /** The server, or undefined when the bot is not in it. */
  guild(guildId: string): Promise<GuildInfo | undefined>;
  channels(guildId: string): Promise<ChannelInfo[]>;
  /** The member as Discord has them now; undefined when they are not in the server. */
  member(guildId: string, userId: string): Promise<MemberInfo | undefined>;
  /**
   * Names to show for some members (the busiest): never through REST, whose 50 requests a second the
   * whole bot shares. In the bot's process, those the client knows; alone, none (ids are shown).
   */
  memberNames(guildId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

const KINDS: Partial<Record<ChannelType, ChannelInfo['kind']>> = {
  [ChannelType.GuildText]: 'text',
  [ChannelType.GuildAnnouncement]: 'text',
  [ChannelType.GuildForum]: 'forum',
  [ChannelType.GuildCategory]: 'category',
};

/** Discord's "no such thing, or not for you" answers: the bot is not in that server, the member not in it. */
const absent = (error: unknown) => error instanceof DiscordAPIError && [10004, 10007, 10013, 50001].includes(Number(error.code));

async function orAbsent<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (absent(error)) return undefined;
    throw error;
  }
}

const memberInfo = (m: APIGuildMember): MemberInfo => ({ roles: m.roles, name: m.nick ?? m.user?.global_name ?? m.user?.username });

/** How long a console of its own trusts its list of the bot's servers (it says where to look, never who may). */
const BOT_GUILDS_TTL_MS = 60_000;

/** Everything asked of Discord over REST (a console of its own). */
export function restDiscord(rest: REST, now: () => number = Date.now): ConsoleDiscord {
  let known: { at: number; ids: Promise<ReadonlySet<string>> } | undefined;
  const listBotGuilds = async (): Promise<ReadonlySet<string>> => {
    const ids = new Set<string>();
    // 200 a page (user.mdx, Get Current User Guilds), in id order.
    for (let after = '0'; ;) {
      const page = (await rest.get(Routes.userGuilds(), { query: new URLSearchParams({ limit: '200', after }) })) as Array<{ id: string }>;
      for (const g of page) ids.add(g.id);
      if (page.length < 200) return ids;
      after = page.at(-1)!.id;
    }
  };
  return {
    botGuildIds() {
      if (!known || now() - known.at >= BOT_GUILDS_TTL_MS) {
        const ids = listBotGuilds();
        known = { at: now(), ids };
        ids.catch(() => (known = undefined));
      }
      return known.ids;
    },
    async guild(guildId) {
      const g = await orAbsent(() => rest.get(Routes.guild(guildId)) as Promise<APIGuild>);
      return g && { id: g.id, name: g.name, ownerId: g.owner_id, roles: g.roles.map((r) => ({ id: r.id, name: r.name, permissions: BigInt(r.permissions), position: r.position })) };
    },
    async channels(guildId) {
      const list = (await orAbsent(() => rest.get(Routes.guildChannels(guildId)) as Promise<APIChannel[]>)) ?? [];
      return list.flatMap((c) => {
        const kind = KINDS[c.type];
        if (!kind) return [];
        const raw = c as { id: string; name?: string | null; parent_id?: string | null; position?: number };
        return [{ id: raw.id, name: raw.name ?? raw.id, kind, parentId: raw.parent_id ?? null, position: raw.position ?? 0 }];
      });
    },
    member: async (guildId, userId) => {
      const m = await orAbsent(() => rest.get(Routes.guildMember(guildId, userId)) as Promise<APIGuildMember>);
      return m && memberInfo(m);
    },
    memberNames: async () => new Map(),
  };
}

/** In the bot's process: the server and its channels from the client's cache, the member asked of Discord now. */
export function clientDiscord(client: Client<true>): ConsoleDiscord {
  const viaRest = restDiscord(client.rest);
  return {
    botGuildIds: async () => new Set(client.guilds.cache.keys()),
    async guild(guildId) {
      const g = client.guilds.cache.get(guildId);
      return g && { id: g.id, name: g.name, ownerId: g.ownerId, roles: [...g.roles.cache.values()].map((r) => ({ id: r.id, name: r.name, permissions: r.permissions.bitfield, position: r.position })) };
    },
    async channels(guildId) {
      const g = client.guilds.cache.get(guildId);
      return g ? [...g.channels.cache.values()].flatMap((c) => {
        const kind = KINDS[c.type];
        return kind ? [{ id: c.id, name: c.name, kind, parentId: c.parentId, position: 'position' in c ? c.position : 0 }] : [];
      }) : [];
    },
    member: viaRest.member,
    async memberNames(guildId, userIds) {
      const g = client.guilds.cache.get(guildId);
      if (!g || userIds.length === 0) return new Map();
      // The client's cache only (members it met through interactions and messages): asking the gateway for
      // members by id waits on chunks that may never come without the Server Members intent.
      return new Map(userIds.flatMap((id) => {
        const m = g.members.cache.get(id);
        return m ? [[id, m.displayName] as const] : [];
      }));
    },
  };
}
