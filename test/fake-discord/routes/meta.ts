/**
 * Everything that is not a channel or an interaction: gateway discovery, the bot user and its
 * application, guild reads, and application commands (bulk overwrite keeps ids by name and type).
 */
import { errors, FormErrors } from '../api-error.js';
import type { FakeCore } from '../core.js';
import { json, noContent, type RouteDef } from '../http.js';
import { checkCommandCount, commandJSON, overwriteCommands, toCommand, validateCommand } from '../command-schema.js';
import { channelJSON, guildCreateJSON, memberJSON, roleJSON, userJSON } from '../serialize.js';

type Json = Record<string, unknown>;

export interface MetaSettings {
  gatewayUrl: () => string;
  shards: number;
  /** Sessions the bot may start per day; each IDENTIFY uses one. */
  sessionStartLimit: number;
  /** How many shards may identify at once (in buckets of `shard_id % max_concurrency`). */
  maxConcurrency: number;
}

export function metaRoutes(core: FakeCore, meta: MetaSettings): RouteDef[] {
  const gatewayBot = () => json({
    url: meta.gatewayUrl(), shards: meta.shards,
    session_start_limit: {
      total: meta.sessionStartLimit, remaining: Math.max(0, meta.sessionStartLimit - (core.gateway?.sessions.size ?? 0)),
      reset_after: 14_400_000, max_concurrency: meta.maxConcurrency,
    },
  });
  const application = () => {
    const bot = core.world.users.get(core.botId);
    return json({
      id: core.settings.applicationId, name: bot?.username ?? 'bot', icon: null, description: '', summary: '',
      bot_public: true, bot_require_code_grant: false, verify_key: '0'.repeat(64), flags: core.settings.applicationFlags,
      team: null, owner: bot ? userJSON(bot) : undefined, bot: bot ? userJSON(bot) : undefined,
      install_params: { scopes: ['bot', 'applications.commands'], permissions: '0' },
      integration_types_config: { 0: {} }, approximate_guild_count: core.world.guilds.size,
    });
  };
  const guild = (id: string) => {
    const g = core.world.guilds.get(id);
    if (!g) throw errors.unknownGuild();
    return g;
  };
  const app = (id: string) => {
    if (id !== core.settings.applicationId) throw errors.missingAccess();
  };
  return [
    { method: 'GET', pattern: '/gateway/bot', auth: true, handle: gatewayBot },
    { method: 'GET', pattern: '/gateway', auth: false, handle: () => json({ url: meta.gatewayUrl() }) },
    { method: 'GET', pattern: '/users/@me', auth: true, handle: () => json(userJSON(core.world.users.get(core.botId)!)) },
    {
      // The bot's servers (user.mdx, Get Current User Guilds: ids ascending after `after`, at most `limit`, 1-200).
      method: 'GET', pattern: '/users/@me/guilds', auth: true,
      handle: ({ query }) => {
        const after = BigInt(query.get('after') ?? '0');
        const limit = Math.min(Math.max(Number(query.get('limit') ?? 200), 1), 200);
        const ids = core.world.mutualGuilds(core.botId).filter((id) => BigInt(id) > after).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)).slice(0, limit);
        return json(ids.map((id) => ({ id, name: core.world.guilds.get(id)!.name, icon: null, banner: null, owner: false, permissions: '0', features: [] })));
      },
    },
    {
      method: 'GET', pattern: '/users/:userId', auth: true,
      handle: ({ params }) => {
        const user = core.world.users.get(params.userId!);
        if (!user) throw errors.unknownUser();
        return json(userJSON(user));
      },
    },
    {
      // Create DM: a bot can open a DM only with a user it shares a server with.
      method: 'POST', pattern: '/users/@me/channels', auth: true,
      handle: ({ body }) => {
        const userId = String(body.recipient_id ?? '');
        if (!core.world.users.has(userId)) throw errors.unknownUser();
        if (core.world.mutualGuilds(userId).length === 0) throw errors.cannotMessageUser();
        return json(channelJSON(core.world, core.world.dmChannel(userId)));
      },
    },
    { method: 'GET', pattern: '/applications/@me', auth: true, handle: application },
    { method: 'GET', pattern: '/oauth2/applications/@me', auth: true, handle: application },
    {
      method: 'GET', pattern: '/guilds/:guildId', auth: true,
      handle: ({ params }) => {
        const { channels: _c, threads: _t, members: _m, ...rest } = guildCreateJSON(core.world, guild(params.guildId!));
        return json(rest);
      },
    },
    {
      method: 'GET', pattern: '/guilds/:guildId/channels', auth: true,
      handle: ({ params }) => json([...core.world.channels.values()]
        .filter((c) => c.guildId === guild(params.guildId!).id && !c.thread).map((c) => channelJSON(core.world, c))),
    },
    {
      method: 'GET', pattern: '/guilds/:guildId/roles', auth: true,
      handle: ({ params }) => json([...core.world.roles.values()].filter((r) => r.guildId === guild(params.guildId!).id).map(roleJSON)),
    },
    {
      method: 'GET', pattern: '/guilds/:guildId/members/:userId', auth: true,
      handle: ({ params }) => {
        const g = guild(params.guildId!);
        const m = core.world.member(g.id, params.userId === '@me' ? core.botId : params.userId!);
        if (!m) throw errors.unknownMember();
        return json(memberJSON(core.world, m));
      },
    },
    ...commandRoutes(core, app, (id) => guild(id).id),
  ];
}

function commandRoutes(core: FakeCore, app: (id: string) => void, guildId: (id: string) => string): RouteDef[] {
  const list = (gid: string | null) => [...core.commands.values()].filter((c) => c.guildId === gid);
  const overwrite = (gid: string | null, body: unknown) => {
    if (!Array.isArray(body)) throw errors.invalidJson();
    return overwriteCommands(core, gid, body as Json[]).map(commandJSON);
  };
  // POST is an upsert: a command with the same name and type is replaced (application-commands.mdx);
  // a new one past the scope's limit is refused with 30032.
  const create = (gid: string | null, body: Json) => {
    const errs = new FormErrors();
    validateCommand(body, errs, []);
    errs.throwIfAny();
    const previous = list(gid);
    const c = toCommand(core, body, gid, previous);
    const existed = core.commands.has(c.id);
    if (!existed) checkCommandCount([...previous, c]);
    core.commands.set(c.id, c);
    return json(commandJSON(c), existed ? 200 : 201);
  };
  /** A command of this scope (a guild's commands are not reached through another guild's routes). */
  const find = (gid: string | null, id: string) => {
    const c = core.commands.get(id);
    if (!c || c.guildId !== gid) throw errors.unknownCommand();
    return c;
  };
  // PATCH edits what it names, the rest kept; a new name must not be another command's.
  const edit = (gid: string | null, id: string, body: Json) => {
    const old = find(gid, id);
    const raw: Json = { ...old.raw, ...body, type: old.type };
    const errs = new FormErrors();
    validateCommand(raw, errs, []);
    errs.throwIfAny();
    if (list(gid).some((c) => c.id !== id && c.name === raw.name && c.type === old.type)) {
      const clash = new FormErrors();
      clash.add(['name'], 'APPLICATION_COMMAND_ALREADY_EXISTS', 'A command with this name already exists');
      throw clash.error();
    }
    const c = { ...old, name: String(raw.name), description: old.type === 1 && typeof raw.description === 'string' ? raw.description : '', raw };
    core.commands.set(id, c);
    return json(commandJSON(c));
  };
  const remove = (gid: string | null, id: string) => {
    core.commands.delete(find(gid, id).id);
    return noContent();
  };
  const g = '/applications/:applicationId/guilds/:guildId/commands';
  return [
    { method: 'PUT', pattern: '/applications/:applicationId/commands', auth: true, handle: ({ params, body }) => (app(params.applicationId!), json(overwrite(null, body))) },
    { method: 'GET', pattern: '/applications/:applicationId/commands', auth: true, handle: ({ params }) => (app(params.applicationId!), json(list(null).map(commandJSON))) },
    { method: 'POST', pattern: '/applications/:applicationId/commands', auth: true, handle: ({ params, body }) => (app(params.applicationId!), create(null, body)) },
    { method: 'DELETE', pattern: '/applications/:applicationId/commands/:commandId', auth: true, handle: ({ params }) => (app(params.applicationId!), remove(null, params.commandId!)) },
    { method: 'PATCH', pattern: '/applications/:applicationId/commands/:commandId', auth: true, handle: ({ params, body }) => (app(params.applicationId!), edit(null, params.commandId!, body as Json)) },
    { method: 'PUT', pattern: g, auth: true, handle: ({ params, body }) => (app(params.applicationId!), json(overwrite(guildId(params.guildId!), body))) },
    { method: 'GET', pattern: g, auth: true, handle: ({ params }) => (app(params.applicationId!), json(list(guildId(params.guildId!)).map(commandJSON))) },
    { method: 'POST', pattern: g, auth: true, handle: ({ params, body }) => (app(params.applicationId!), create(guildId(params.guildId!), body)) },
    { method: 'DELETE', pattern: `${g}/:commandId`, auth: true, handle: ({ params }) => (app(params.applicationId!), remove(guildId(params.guildId!), params.commandId!)) },
    { method: 'PATCH', pattern: `${g}/:commandId`, auth: true, handle: ({ params, body }) => (app(params.applicationId!), edit(guildId(params.guildId!), params.commandId!, body as Json)) },
    { method: 'GET', pattern: `${g}/:commandId`, auth: true, handle: ({ params }) => (app(params.applicationId!), json(commandJSON(find(guildId(params.guildId!), params.commandId!)))) },
  ];
}
