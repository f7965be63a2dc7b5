/**
 * The shape of a guild's settings record. Every field has an empty default so a guild nobody has
 * configured behaves like a fresh one, and objects are loose so later issues can add fields (and
 * records written by a newer version keep theirs) without a migration.
 */
import { z } from 'zod';
import { STEP_LIMIT } from '../agent/run-defaults.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** Bump with a migration in `GUILD_SETTINGS_MIGRATIONS` when a field changes meaning. */
export const GUILD_SETTINGS_VERSION = 1;

/** Allow or deny one tool, for the whole guild or narrowed to a channel and/or a role. */
export const ToolRuleSchema = z.looseObject({
  tool: z.string().min(1),
  allow: z.boolean(),
  channelId: z.string().optional(),
  /** A category: the rule applies in every channel under it (a channel rule there still wins). */
  categoryId: z.string().optional(),
  roleId: z.string().optional(),
});

/** One moderator action, newest last. */
export const AuditEntrySchema = z.looseObject({
  at: z.number(),
  actorId: z.string(),
  action: z.string(),
  detail: z.string().optional(),
  /** The actor's display name at the time, so the log reads well after they leave or rename. */
  actorName: z.string().optional(),
  /**
   * Where the change was made when not by a Discord command (`console`: the web console). Any string is
   * kept, so a record a newer version wrote still reads; only the known ones are shown.
   */
  via: z.string().optional(),
});

/**
 * A guild's overrides of the usage limits (`/settings limits`). An unset field uses the environment
 * default; 0 means no limit. Bounds keep a typo from meaning something absurd.
 */
export const LimitOverridesSchema = z.looseObject({
  /** Runs a member may start per hour (USER_RUNS_PER_HOUR). */
  runsPerHour: z.number().int().min(0).max(10_000).optional(),
  /** Runs a member may have in flight at once (USER_CONCURRENT_RUNS). */
  concurrentRuns: z.number().int().min(0).max(100).optional(),
  /** Model tokens a member may use per UTC day (USER_DAILY_TOKENS). */
  userDailyTokens: z.number().int().min(0).max(1_000_000_000_000).optional(),
  /** Model tokens the whole server may use per UTC day (GUILD_DAILY_TOKENS). */
  guildDailyTokens: z.number().int().min(0).max(1_000_000_000_000).optional(),
});

/**
 * An outside tool's listing as a moderator enabled it: what the model and the policy read then, kept so
 * that `/tools` can show what changed since (see `ToolListing` in src/agent/tool.ts).
 */
export const PinnedListingSchema = z.looseObject({
  tool: z.string(),
  title: z.string().optional(),
  description: z.string(),
  schema: z.string(),
  annotations: z.record(z.string(), z.boolean()),
});

/** A pin: the fingerprint of the listing enabled, and the listing itself. */
export const ToolPinSchema = z.looseObject({
  fingerprint: z.string(),
  listing: PinnedListingSchema.optional(),
  /** When it was pinned (epoch ms). */
  at: z.number().optional(),
});

/** Longest persona (extra instructions) a moderator may set. */
export const PERSONA_MAX_CHARS = TEXT_CAPS.persona;

/** One guild's settings record. */
export const GuildSettingsSchema = z.looseObject({
  v: z.number().int().default(GUILD_SETTINGS_VERSION),
  toolRules: z.array(ToolRuleSchema).default([]),
  /** Channel id → how much of each run the bot shows there; the Discord layer names the levels. */
  displayLevels: z.record(z.string(), z.string()).default({}),
  /** Overrides AGENT_MAX_STEPS for this guild. */
  stepLimit: z.number().int().min(STEP_LIMIT.min).max(STEP_LIMIT.max).optional(),
  auditLog: z.array(AuditEntrySchema).default([]),
  /** Where every moderator change is also posted; unset means nowhere. */
  logChannelId: z.string().optional(),
  /** Usage limit overrides; absent on guilds nobody has configured (so old records need no migration). */
  limits: LimitOverridesSchema.optional(),
  /** Roles whose members have no member limits (the server's daily token cap still applies to them). */
  limitExemptRoles: z.array(z.string()).optional(),
  /** The model to use, by place: a channel or category id, or the guild's own id for the whole server. */
  models: z.record(z.string(), z.string()).optional(),
  /** Moderators' extra instructions (tone, language, focus), by place as for `models`. */
  personas: z.record(z.string(), z.string().max(PERSONA_MAX_CHARS)).optional(),
  /**
   * Which tools wait for a person's approval, as rules shaped like tool rules: `allow: false` is
   * `ask` (wait for Approve), `allow: true` is `auto`. Same targets and precedence as `toolRules`.
   */
  approvalRules: z.array(ToolRuleSchema).optional(),
  /**
   * Tool name → its pin (MCP tools): the fingerprint of its listing (name, title, description, schema,
   * annotations) when a moderator last enabled it, with that listing. A tool whose server changed any
   * of it since is suspended until enabled again. A bare string is a pin from before listings were kept
   * (its fingerprint covered less, so such a tool is suspended until enabled again).
   */
  toolPins: z.record(z.string(), z.union([z.string(), ToolPinSchema])).optional(),
  /**
   * Where memory is on or off, by place as for `models`: member memory (`members`: the memory block and
   * `remember`/`forget`) and past-thread search (`threads`). Absent: on.
   */
  memory: z.looseObject({
    members: z.record(z.string(), z.boolean()).optional(),
    threads: z.record(z.string(), z.boolean()).optional(),
  }).optional(),
  /** Who may schedule questions (`/settings schedules`): off, moderators or everyone; unset means moderators. */
  schedules: z.enum(['off', 'moderators', 'everyone']).optional(),
  /** Who may write skills (`/settings skills`): off (no skills run here), moderators or everyone; unset means moderators. */
  skills: z.enum(['off', 'moderators', 'everyone']).optional(),
  /**
   * Where the bot answers without `/ask`, by place as for `models` (`/settings answers`): `mention` (the
   * default: mentions and replies to the bot), `always` (every new message or forum post), `off`.
   */
  answers: z.record(z.string(), z.enum(['mention', 'always', 'off'])).optional(),
  updatedAt: z.number().optional(),
});

/** Parsed forms of the schemas above. */
export type ToolRule = z.infer<typeof ToolRuleSchema>;
/** @see LimitOverridesSchema */
export type LimitOverrides = z.infer<typeof LimitOverridesSchema>;
/** @see AuditEntrySchema */
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
/** @see ToolPinSchema */
export type ToolPin = z.infer<typeof ToolPinSchema>;
/** @see PinnedListingSchema */
export type PinnedListing = z.infer<typeof PinnedListingSchema>;
/** @see GuildSettingsSchema */
export type GuildSettings = z.infer<typeof GuildSettingsSchema>;

/** The audit log is kept to its newest entries so the record stays small. */
export const AUDIT_LOG_LIMIT = 500;

/** Settings of a guild nobody has configured. */
export function defaultGuildSettings(): GuildSettings {
  return GuildSettingsSchema.parse({});
}
