/**
 * Which tools a run may use, and why: a pure function of the guild's rules, where the run happens and
 * who started it. No I/O, no discord.js, so the precedence table is tested on its own.
 *
 * Location rules (rules without a role) decide first, most specific wins:
 *   channel rule > category rule > server rule > built-in default.
 * Role rules then apply to the member who started the run, and beat the location verdict: a role allow
 * turns on a tool the location leaves off (e.g. read_url for @Researchers), a role deny turns off a tool
 * the location allows. If the member's roles disagree, deny wins, so a restricting role (e.g. @Muted) is
 * never undone by another role. A role rule may be narrowed to a channel or category; it then only
 * counts there. Among identical rules the newest (last) one counts.
 */
import type { PinnedListing, ToolPin, ToolRule } from '../state/guild-settings-schema.js';

/** What a tool must say about itself for the built-in default. */
export interface PolicyTool {
  name: string;
  /** Reaches beyond the bot's process (the web, an MCP server): off until a moderator turns it on. */
  network?: boolean;
  /** Calls wait for approval until a moderator says `auto` (MCP tools not marked read-only). */
  askByDefault?: boolean;
  /**
   * What the model is told about the tool, as a fingerprint (MCP tools). Enabling pins it; while the
   * tool differs from the pin it is suspended (see `pinMismatch`).
   */
  fingerprint?: string;
}

/**
 * The built-in default, in its one home: a tool is on unless it reaches arbitrary places on the web
 * (`network`); those stay off until a moderator turns them on.
 */
export function enabledByDefault(tool: PolicyTool): boolean {
  return tool.network !== true;
}

/** Names of the tools that are on by default: also what runs get when the rules cannot be read. */
export function safeToolNames(tools: readonly PolicyTool[]): string[] {
  return tools.filter(enabledByDefault).map((t) => t.name);
}

/** Where a run happens and whose roles count. */
export interface AccessScope {
  /** The channel whose rules apply (a thread's parent). */
  channelId: string;
  categoryId: string | null;
  /** Roles of the member who started the run. */
  roleIds: readonly string[];
}

/** What decided a tool's state: the built-in default or the kind of rule that won. */
export type AccessSource = 'default' | 'server' | 'category' | 'channel' | 'role';

/** One tool's verdict, with the rule that made it (none for the built-in default). */
export interface ToolAccess {
  tool: string;
  enabled: boolean;
  source: AccessSource;
  rule?: ToolRule;
  /** When a role rule decided: what the location alone would have said. */
  overridden?: { enabled: boolean; source: Exclude<AccessSource, 'role'>; rule?: ToolRule };
  /** Network tools are off by default; used to explain the default. */
  network: boolean;
}

/** The location a rule is narrowed to (most specific field wins if a stored rule has several). */
export function ruleLocation(rule: Pick<ToolRule, 'channelId' | 'categoryId'>): 'channel' | 'category' | 'server' {
  if (rule.channelId) return 'channel';
  if (rule.categoryId) return 'category';
  return 'server';
}

function matchesLocation(rule: ToolRule, scope: AccessScope): boolean {
  switch (ruleLocation(rule)) {
    case 'channel':
      return rule.channelId === scope.channelId;
    case 'category':
      return scope.categoryId !== null && rule.categoryId === scope.categoryId;
    default:
      return true;
  }
}

/** The built-in default and location rules only, most specific last. */
function locationVerdict(tool: PolicyTool, rules: readonly ToolRule[], scope: AccessScope): NonNullable<ToolAccess['overridden']> {
  let verdict: NonNullable<ToolAccess['overridden']> = { enabled: enabledByDefault(tool), source: 'default' };
  const rank = { default: 0, server: 1, category: 2, channel: 3 } as const;
  for (const rule of rules) {
    if (rule.roleId || !matchesLocation(rule, scope)) continue;
    const source = ruleLocation(rule);
    // `>=`: among rules at the same level the later (newer) one counts.
    if (rank[source] >= rank[verdict.source]) verdict = { enabled: rule.allow, source, rule };
  }
  return verdict;
}

/**
 * Resolve every tool in `tools` (in that order) for a run in `scope`. Rules naming tools that are not
 * in `tools` are ignored.
 */
export function resolveToolAccess(
  settings: { toolRules: readonly ToolRule[] },
  scope: AccessScope,
  tools: readonly PolicyTool[],
): ToolAccess[] {
  const roles = new Set(scope.roleIds);
  return tools.map((tool) => {
    const rules = settings.toolRules.filter((r) => r.tool === tool.name);
    const location = locationVerdict(tool, rules, scope);
    const network = tool.network === true;
    const roleRules = rules.filter((r) => r.roleId !== undefined && roles.has(r.roleId) && matchesLocation(r, scope));
    const deciding = roleRules.filter((r) => !r.allow).at(-1) ?? roleRules.at(-1);
    if (!deciding) return { tool: tool.name, network, ...location };
    return { tool: tool.name, network, enabled: deciding.allow, source: 'role', rule: deciding, overridden: location };
  });
}

/** A guild's pins, by tool name. */
export type ToolPins = { toolPins?: Record<string, string | ToolPin> };

/** The fingerprint a guild pinned for `tool`, whichever way the pin was stored. */
export function pinnedFingerprint(settings: ToolPins, tool: string): string | undefined {
  const pin = settings.toolPins?.[tool];
  return typeof pin === 'string' ? pin : pin?.fingerprint;
}

/** The listing a guild pinned for `tool` (absent for pins from before listings were kept). */
export function pinnedListing(settings: ToolPins, tool: string): PinnedListing | undefined {
  const pin = settings.toolPins?.[tool];
  return typeof pin === 'string' ? undefined : pin?.listing;
}

/**
 * Whether a tool is suspended in a guild: it has a fingerprint (it comes from outside) and that is not
 * the one pinned when a moderator last enabled it, because its server changed its name, title,
 * description, schema or annotations since (or it was never enabled through `/tools enable`).
 */
export function pinMismatch(settings: ToolPins, tool: PolicyTool): boolean {
  return tool.fingerprint !== undefined && pinnedFingerprint(settings, tool.name) !== tool.fingerprint;
}

/** Just the names of the enabled tools. */
export function enabledToolNames(access: readonly ToolAccess[]): Set<string> {
  return new Set(access.filter((a) => a.enabled).map((a) => a.tool));
}
