/**
 * How tool rules read in Discord: a rule's target as mentions (`<#id>`, `<@&id>`), why a tool is on or
 * off in words a moderator can act on (which rule decided, naming its target, and, when a role rule
 * decided, what the place alone would have said), and the precedence line. The decisions themselves are
 * pure policy (src/policy/resolve-access.ts); this only writes them as sentences for `/tools` replies
 * and the audit log.
 */
import type { AccessSource, RuleTarget, ToolAccess } from '../../policy/index.js';
import type { ToolRule } from '../../state/guild-settings-schema.js';

/** The precedence, in one line, for the footer of `/tools list` and docs/moderation.md. */
export const PRECEDENCE_NOTE =
  'Role rules (of the member who started the run; deny wins between roles) > channel rule > category rule > server rule > built-in default.';

const SOURCE_NAMES: Record<AccessSource, string> = {
  default: 'built-in default',
  server: 'server rule',
  category: 'category rule',
  channel: 'channel rule',
  role: 'role rule',
};

/** How a target reads in Discord: `the whole server`, `<#id>`, `category <#id>`, `members with <@&id> in <#id>`. */
export function describeTarget(target: RuleTarget): string {
  const place = target.channelId ? `<#${target.channelId}>` : target.categoryId ? `category <#${target.categoryId}>` : undefined;
  if (target.roleId) return `members with <@&${target.roleId}>${place ? ` in ${place}` : ''}`;
  return place ?? 'the whole server';
}

/** `for …` / `in …` phrasing used in confirmations and the audit log. */
export function targetPhrase(target: RuleTarget): string {
  const described = describeTarget(target);
  return target.roleId || (!target.channelId && !target.categoryId) ? `for ${described}` : `in ${described}`;
}

function ruleWords(rule: ToolRule): string {
  return `${rule.allow ? 'enabled' : 'disabled'} ${targetPhrase(rule)}`;
}

function defaultWords(network: boolean, enabled: boolean): string {
  if (network) return 'off: it reaches the web, so a moderator must enable it';
  return enabled ? 'on: it stays inside the bot or asks one fixed service' : 'off';
}

/** One verdict, e.g. `⛔ calculate: channel rule (disabled in <#1>)`. */
export function explainAccess(access: ToolAccess): string {
  const mark = access.enabled ? '✅' : '⛔';
  const why = access.rule
    ? `${SOURCE_NAMES[access.source]} (${ruleWords(access.rule)})`
    : `${SOURCE_NAMES.default} (${defaultWords(access.network, access.enabled)})`;
  let line = `${mark} \`${access.tool}\`: ${why}`;
  if (access.overridden) {
    const before = access.overridden;
    line += `; without that role it would be ${before.enabled ? 'on' : 'off'} by the ${SOURCE_NAMES[before.source]}`;
  }
  return line;
}

/** A rule as one line for `/tools` replies: `` `read_url` enabled for members with <@&1> ``. */
export function describeRule(rule: ToolRule): string {
  return `\`${rule.tool}\` ${ruleWords(rule)}`;
}

/** The log channel's line when an outside tool is suspended because its MCP server changed it since it was enabled. */
export function suspendedToolLine(tool: string): string {
  return `⏸️ \`${tool}\` was suspended: its MCP server changed what it says of it (title, description, parameters or hints) since it was enabled. See what changed with \`/tools show tool:${tool}\`, then \`/tools enable\` it again to use it.`;
}
