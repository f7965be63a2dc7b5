/**
 * What a freshly identified gateway session receives: READY (bot user, unavailable guilds, session
 * id, resume URL, application), then one GUILD_CREATE per guild on its shard when it asked for the
 * Guilds intent; and GUILD_MEMBERS_CHUNK answers to Request Guild Members.
 */
import type { FakeCore } from './core.js';
import { type GatewaySession, Intent, shardOf } from './gateway.js';
import { guildCreateJSON, memberJSON, userJSON } from './serialize.js';

export function sendReady(core: FakeCore, s: GatewaySession, resumeUrl: string): void {
  const gateway = core.gateway!;
  const bot = core.world.users.get(core.botId)!;
  const guilds = [...core.world.guilds.values()].filter((g) => shardOf(g.id, s.shard[1]) === s.shard[0]);
  gateway.sendTo(s, 'READY', {
    v: 10, user: { ...userJSON(bot), verified: true, mfa_enabled: false, email: null },
    guilds: guilds.map((g) => ({ id: g.id, unavailable: true })), session_id: s.id, session_type: 'normal',
    resume_gateway_url: resumeUrl, shard: s.shard,
    application: { id: core.settings.applicationId, flags: core.settings.applicationFlags },
    user_settings: {}, relationships: [], private_channels: [], presences: [], guild_join_requests: [],
    geo_ordered_rtc_regions: [], auth: {}, _trace: ['["fake-discord-gateway"]'],
  });
  core.emit({ kind: 'gateway', action: 'identify', sessionId: s.id, detail: { intents: s.intents, shard: s.shard } });
  if ((s.intents & Intent.Guilds) !== 0) {
    const allMembers = (s.intents & Intent.GuildPresences) !== 0;
    for (const g of guilds) gateway.sendTo(s, 'GUILD_CREATE', guildCreateJSON(core.world, g, { allMembers }));
  }
  core.emit({ kind: 'gateway', action: 'ready', sessionId: s.id });
}

/**
 * Answers Request Guild Members (gateway-events.mdx): the whole list (`query: ''`) only with the
 * GUILD_MEMBERS intent (without it Discord answers nothing: discord-api-docs #5855); a `query` is a
 * username or nickname prefix, at most `limit` and never more than 100 members; `user_ids` at most 100.
 * Members come in chunks of up to 1000.
 */
export function sendMemberChunks(core: FakeCore, s: GatewaySession, d: Record<string, unknown>): void {
  const guildId = String(Array.isArray(d.guild_id) ? d.guild_id[0] : d.guild_id);
  const nonce = typeof d.nonce === 'string' && Buffer.byteLength(d.nonce) <= 32 ? d.nonce : undefined;
  const wanted = Array.isArray(d.user_ids) ? d.user_ids.map(String) : typeof d.user_ids === 'string' ? [d.user_ids] : null;
  const all = core.world.membersOf(guildId);
  let members: typeof all;
  if (wanted) {
    members = all.filter((m) => wanted.slice(0, 100).includes(m.userId));
  } else {
    const query = typeof d.query === 'string' ? d.query.toLowerCase() : '';
    const limit = typeof d.limit === 'number' && d.limit > 0 ? d.limit : 0;
    if (query === '') {
      if ((s.intents & Intent.GuildMembers) === 0) return;
      members = limit > 0 ? all.slice(0, limit) : all;
    } else {
      const names = (userId: string, nick: string | null) => [core.world.users.get(userId)?.username, nick].filter(Boolean) as string[];
      const matching = all.filter((m) => names(m.userId, m.nick).some((n) => n.toLowerCase().startsWith(query)));
      members = matching.slice(0, Math.min(limit || 100, 100));
    }
  }
  const chunks = Math.max(Math.ceil(members.length / 1000), 1);
  for (let i = 0; i < chunks; i += 1) {
    core.gateway!.sendTo(s, 'GUILD_MEMBERS_CHUNK', {
      guild_id: guildId, members: members.slice(i * 1000, (i + 1) * 1000).map((m) => memberJSON(core.world, m)),
      chunk_index: i, chunk_count: chunks,
      ...(wanted && i === chunks - 1 ? { not_found: wanted.filter((id) => !members.some((m) => m.userId === id)) } : {}),
      ...(d.presences === true && (s.intents & Intent.GuildPresences) !== 0 ? { presences: [] } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
    });
  }
}
