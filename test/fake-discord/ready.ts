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
    for (const g of guilds) gateway.sendTo(s, 'GUILD_CREATE', guildCreateJSON(core.world, g));
  }
  core.emit({ kind: 'gateway', action: 'ready', sessionId: s.id });
}

export function sendMemberChunks(core: FakeCore, s: GatewaySession, d: Record<string, unknown>): void {
  const guildIds = Array.isArray(d.guild_id) ? d.guild_id.map(String) : [String(d.guild_id)];
  const wanted = Array.isArray(d.user_ids) ? d.user_ids.map(String) : typeof d.user_ids === 'string' ? [d.user_ids] : null;
  for (const guildId of guildIds) {
    const members = core.world.membersOf(guildId).filter((m) => !wanted || wanted.includes(m.userId));
    core.gateway!.sendTo(s, 'GUILD_MEMBERS_CHUNK', {
      guild_id: guildId, members: members.map((m) => memberJSON(core.world, m)), chunk_index: 0, chunk_count: 1,
      not_found: wanted ? wanted.filter((id) => !members.some((m) => m.userId === id)) : [], nonce: d.nonce,
    });
  }
}
