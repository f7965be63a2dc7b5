/**
 * Which tool calls wait for a person's approval. Moderators mark a tool `ask` or `auto` per server,
 * category, channel or role (`/tools approval`), with exactly the precedence of enabling and disabling
 * tools, because the rules are stored and resolved the same way: `allow: true` is `auto`, `allow:
 * false` is `ask`, and every tool is `auto` until a rule says otherwise. Between a member's roles,
 * `ask` wins, as deny does for access: a cautious role is never undone by another.
 */
import type { GuildSettings } from '../state/guild-settings-schema.js';
import { resolveToolAccess, type AccessScope, type AccessSource, type PolicyTool } from './resolve-access.js';

export type ApprovalMode = 'ask' | 'auto';

export interface ApprovalVerdict {
  mode: ApprovalMode;
  /** Which rule decided, `default` (auto), or `tool`: the tool said this call must wait. */
  source: AccessSource | 'tool';
}

/** What is known about one call when its approval is decided. */
export interface ApprovalCall {
  /** The tool itself says this call must wait for a person (a memory entry nobody asked for): no rule can make it `auto`. */
  required?: boolean;
}

/**
 * Whether calls to `tool` by a run in `scope` wait for Approve. The default is `auto`, or `ask` for a
 * tool that says `askByDefault` (an MCP tool its server does not mark read-only). A call the tool
 * itself says must wait (`call.required`) waits whatever the rules say.
 */
export function approvalMode(settings: Pick<GuildSettings, 'approvalRules'>, scope: AccessScope, tool: string | Pick<PolicyTool, 'name' | 'askByDefault'>, call?: ApprovalCall): ApprovalVerdict {
  if (call?.required) return { mode: 'ask', source: 'tool' };
  const { name, askByDefault } = typeof tool === 'string' ? { name: tool, askByDefault: false } : tool;
  // The default of an approval rule set is "allowed" (auto); `network` turns it to "not allowed" (ask).
  const [verdict] = resolveToolAccess({ toolRules: settings.approvalRules ?? [] }, scope, [{ name, network: askByDefault === true }]);
  return { mode: verdict!.enabled ? 'auto' : 'ask', source: verdict!.source };
}

/** The tools among `tools` that wait for approval in `scope`. */
export function toolsNeedingApproval(
  settings: Pick<GuildSettings, 'approvalRules'>,
  scope: AccessScope,
  tools: ReadonlyArray<string | Pick<PolicyTool, 'name' | 'askByDefault'>>,
): string[] {
  const named = tools.map((t) => (typeof t === 'string' ? { name: t } : t));
  if (!settings.approvalRules?.length && !named.some((t) => t.askByDefault)) return [];
  return named.filter((tool) => approvalMode(settings, scope, tool).mode === 'ask').map((t) => t.name);
}
