/**
 * The named writes of a guild's tool rules (`/tools enable|disable|approval|reset`; the web console
 * next). Like every write of the rules object, each takes the actor and saves its change with its
 * audit entry in one update, then posts the line to the log channel.
 */
import { removeToolRules, setToolRule, type RuleTarget } from '../../policy/index.js';
import type { ToolListing } from '../../agent/tool.js';
import type { GuildSettings, ToolRule } from '../../state/index.js';
import { describeRule, targetPhrase } from '../text/rule-text.js';
import type { Actor, AuditTrail, Written } from './audit-trail.js';

/** The longest reset sentence the audit log keeps (a reset of many rules names them all in the reply). */
const RESET_DETAIL_MAX = 900;

/** The named writes of the tool rules, each audited. */
export interface ToolWrites {
  /**
   * Enable or disable a tool for a target. Enabling a tool from outside (an MCP server) with its `pin`
   * pins what the model and the policy read of it now, with its listing, so a later change suspends it
   * and can be shown beside what was enabled.
   */
  setToolMode(guildId: string, actor: Actor, change: { tool: string; allow: boolean; target: RuleTarget; pin?: { fingerprint: string; listing?: ToolListing } }): Promise<Written>;
  /** Whether calls to a tool wait for a person's approval (`ask`) or run at once (`auto`) for a target. */
  setApproval(guildId: string, actor: Actor, change: { tool: string; mode: 'ask' | 'auto'; target: RuleTarget }): Promise<Written>;
  /**
   * Remove the rules of one tool (`tool` left out: of every tool) for one target or everywhere. Nothing
   * matched: undefined, and nothing is written (no audit entry for nothing). The result's detail names
   * every rule removed; the audit log keeps its first 900 characters.
   */
  resetTools(guildId: string, actor: Actor, change: { tool?: string; target: RuleTarget | 'everywhere' }): Promise<(Written & { removed: ToolRule[] }) | undefined>;
  /**
   * Accept what an outside tool says of itself now (its server changed it since it was pinned): the pin
   * moves to its listing now, and where the rules enable it, it runs again. The rules stay as they are.
   */
  repinTool(guildId: string, actor: Actor, change: { tool: string; pin: { fingerprint: string; listing?: ToolListing } }): Promise<Written>;
}

/** How a reset names what it is for: `` `calculate` everywhere ``, `every tool in <#1>`. */
export function resetScope(tool: string | undefined, target: RuleTarget | 'everywhere'): string {
  return `${tool ? `\`${tool}\`` : 'every tool'} ${target === 'everywhere' ? 'everywhere' : targetPhrase(target)}`;
}

/** The tool writes over the audit trail; `read` for a reset's look before it writes, `now` for pins. */
export function createToolWrites(trail: AuditTrail, deps: { read: (guildId: string) => Promise<GuildSettings>; now: () => Date }): ToolWrites {
  return {
    setToolMode(guildId, actor, { tool, allow, target, pin }) {
      // Only an enable pins: a disabled tool is not offered, whatever it says of itself.
      const pinned = allow ? pin : undefined;
      const detail = `${allow ? 'enabled' : 'disabled'} \`${tool}\` ${targetPhrase(target)}${pinned ? ' (pinned as it is now)' : ''}`;
      return trail.change(guildId, actor, { action: allow ? 'tools.enable' : 'tools.disable', detail }, (s) => ({
        ...s,
        toolRules: setToolRule(s.toolRules, tool, allow, target),
        ...(pinned
          ? { toolPins: { ...s.toolPins, [tool]: { fingerprint: pinned.fingerprint, ...(pinned.listing ? { listing: { ...pinned.listing } } : {}), at: deps.now().getTime() } } }
          : {}),
      }));
    },
    setApproval(guildId, actor, { tool, mode, target }) {
      const detail = mode === 'ask'
        ? `made calls to \`${tool}\` wait for approval ${targetPhrase(target)}`
        : `let calls to \`${tool}\` run without approval ${targetPhrase(target)}`;
      return trail.change(guildId, actor, { action: `tools.approval.${mode}`, detail }, (s) => ({
        ...s,
        approvalRules: setToolRule(s.approvalRules ?? [], tool, mode === 'auto', target),
      }));
    },
    repinTool(guildId, actor, { tool, pin }) {
      const detail = `accepted the changed \`${tool}\` as its MCP server describes it now (pinned as it is now)`;
      return trail.change(guildId, actor, { action: 'tools.pin', detail }, (s) => ({
        ...s,
        toolPins: { ...s.toolPins, [tool]: { fingerprint: pin.fingerprint, ...(pin.listing ? { listing: { ...pin.listing } } : {}), at: deps.now().getTime() } },
      }));
    },
    async resetTools(guildId, actor, { tool, target }) {
      // Read first so an empty reset writes no audit entry for nothing; the update removes what matches then.
      const { removed } = removeToolRules((await deps.read(guildId)).toolRules, tool, target);
      if (removed.length === 0) return undefined;
      const detail = `reset ${resetScope(tool, target)} (removed ${removed.length} rule${removed.length === 1 ? '' : 's'}: ${removed.map(describeRule).join('; ')})`;
      const kept = detail.length > RESET_DETAIL_MAX ? `${detail.slice(0, RESET_DETAIL_MAX - 1)}…)` : detail;
      const written = await trail.change(guildId, actor, { action: 'tools.reset', detail: kept }, (s) => ({ ...s, toolRules: removeToolRules(s.toolRules, tool, target).kept }));
      return { ...written, detail, removed };
    },
  };
}
