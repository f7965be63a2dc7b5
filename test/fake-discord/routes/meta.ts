/**
 * Everything that is not a channel or an interaction: gateway discovery, the bot user and its
 * application, guild reads, and application commands (bulk overwrite keeps ids by name and type).
 */
import { errors, FormErrors } from '../api-error.js';
import type { FakeCore } from '../core.js';
import { json, noContent, type RouteDef } from '../http.js';
import type { FakeCommand } from '../records.js';
import { channelJSON, guildCreateJSON, memberJSON, roleJSON, userJSON } from '../serialize.js';
import { charLength } from '../validation.js';

type Json = Record<string, unknown>;

export interface MetaSettings {
  gatewayUrl: () => string;
  shards: number;
  /** Sessions the bot may start per day; each IDENTIFY uses one. */
  sessionStartLimit: number;
}

export function metaRoutes(core: FakeCore, meta: MetaSettings): RouteDef[] {
  const gatewayBot = () => json({
    url: meta.gatewayUrl(), shards: meta.shards,
    session_start_limit: {
      total: meta.sessionStartLimit, remaining: Math.max(0, meta.sessionStartLimit - (core.gateway?.sessions.size ?? 0)),
      reset_after: 14_400_000, max_concurrency: 1,
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
      method: 'GET', pattern: '/users/:userId', auth: true,
      handle: ({ params }) => {
        const user = core.world.users.get(params.userId!);
        if (!user) throw errors.unknownUser();
        return json(userJSON(user));
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
  const out = (c: FakeCommand) => ({
    ...c.raw, id: c.id, application_id: c.applicationId, version: c.id, type: c.type, name: c.name,
    description: c.description, default_member_permissions: c.raw.default_member_permissions ?? null,
    nsfw: false, ...(c.guildId ? { guild_id: c.guildId } : { integration_types: [0], contexts: null }),
  });
  const overwrite = (gid: string | null, body: unknown) => {
    if (!Array.isArray(body)) throw errors.invalidJson();
    const errs = new FormErrors();
    body.forEach((raw, i) => validateCommand(raw as Json, errs, [i]));
    errs.throwIfAny();
    const previous = list(gid);
    for (const c of previous) core.commands.delete(c.id);
    return body.map((raw) => {
      const c = toCommand(core, raw as Json, gid, previous);
      core.commands.set(c.id, c);
      return out(c);
    });
  };
  const create = (gid: string | null, body: Json) => {
    const errs = new FormErrors();
    validateCommand(body, errs, []);
    errs.throwIfAny();
    const c = toCommand(core, body, gid, list(gid));
    core.commands.set(c.id, c);
    return json(out(c), 201);
  };
  const remove = (id: string) => {
    if (!core.commands.delete(id)) throw errors.unknownCommand();
    return noContent();
  };
  const g = '/applications/:applicationId/guilds/:guildId/commands';
  return [
    { method: 'PUT', pattern: '/applications/:applicationId/commands', auth: true, handle: ({ params, body }) => (app(params.applicationId!), json(overwrite(null, body))) },
    { method: 'GET', pattern: '/applications/:applicationId/commands', auth: true, handle: ({ params }) => (app(params.applicationId!), json(list(null).map(out))) },
    { method: 'POST', pattern: '/applications/:applicationId/commands', auth: true, handle: ({ params, body }) => (app(params.applicationId!), create(null, body)) },
    { method: 'DELETE', pattern: '/applications/:applicationId/commands/:commandId', auth: true, handle: ({ params }) => (app(params.applicationId!), remove(params.commandId!)) },
    { method: 'PUT', pattern: g, auth: true, handle: ({ params, body }) => (app(params.applicationId!), json(overwrite(guildId(params.guildId!), body))) },
    { method: 'GET', pattern: g, auth: true, handle: ({ params }) => (app(params.applicationId!), json(list(guildId(params.guildId!)).map(out))) },
    { method: 'POST', pattern: g, auth: true, handle: ({ params, body }) => (app(params.applicationId!), create(guildId(params.guildId!), body)) },
    { method: 'DELETE', pattern: `${g}/:commandId`, auth: true, handle: ({ params }) => (app(params.applicationId!), remove(params.commandId!)) },
  ];
}

function toCommand(core: FakeCore, raw: Json, guildId: string | null, previous: FakeCommand[]): FakeCommand {
  const type = typeof raw.type === 'number' ? raw.type : 1;
  const name = String(raw.name);
  const same = previous.find((c) => c.name === name && c.type === type);
  return {
    id: same?.id ?? core.world.nextId(), applicationId: core.settings.applicationId, guildId, name, type,
    description: typeof raw.description === 'string' ? raw.description : '', raw,
  };
}

const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

function validateCommand(c: Json, errs: FormErrors, path: Array<string | number>): void {
  const chatInput = c.type === undefined || c.type === 1;
  const name = typeof c.name === 'string' ? c.name : '';
  if (!NAME.test(name) || (chatInput && name !== name.toLowerCase())) {
    errs.add([...path, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  }
  const description = typeof c.description === 'string' ? charLength(c.description) : 0;
  if (chatInput && (description < 1 || description > 100)) {
    errs.add([...path, 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
  const options = Array.isArray(c.options) ? (c.options as Json[]) : [];
  if (options.length > 25) errs.add([...path, 'options'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  options.forEach((o, i) => {
    if (typeof o.name !== 'string' || !NAME.test(o.name)) errs.add([...path, 'options', i, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    const d = typeof o.description === 'string' ? charLength(o.description) : 0;
    if (d < 1 || d > 100) errs.add([...path, 'options', i, 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  });
}
