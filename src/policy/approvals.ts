/**
 * Which tool calls wait for a person's approval. Moderators mark a tool `ask` or `auto` per server,
 * category, channel or role (`/tools approval`), with exactly the precedence of enabling and disabling
 * tools, because the rules are stored and resolved the same way: `allow: true` is `auto`, `allow:
 * false` is `ask`, and every tool is `auto` until a rule says otherwise. Between a member's roles,
 * `ask` wins, as deny does for access: a cautious role is never undone by another.
 */
import type { GuildSettings } from '../state/guild-settings-schema.js';
import { pinMismatch, pinnedListing, resolveToolAccess, type AccessScope, type AccessSource, type PolicyTool } from './resolve-access.js';

type ApprovalTool = Pick<PolicyTool, 'name' | 'askByDefault' | 'fingerprint'>;

/**
 * Whether a tool waits for approval unless a moderator says otherwise. For an outside tool this is read
 * from what a moderator enabled, never from what its server says now: a server that re-lists a
 * destructive tool as `readOnlyHint: true` changes its fingerprint, and a tool that differs from its
 * pin always waits for a person (it is suspended too, but a call may already be on its way).
 */
function asksByDefault(settings: Pick<GuildSettings, 'toolPins'>, tool: ApprovalTool): boolean {
  if (tool.fingerprint === undefined) return tool.askByDefault === true;
  if (pinMismatch(settings, tool)) return true;
  const listing = pinnedListing(settings, tool.name);
  return listing ? listing.annotations.readOnlyHint !== true : tool.askByDefault === true;
}

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
export function approvalMode(settings: Pick<GuildSettings, 'approvalRules' | 'toolPins'>, scope: AccessScope, tool: string | ApprovalTool, call?: ApprovalCall): ApprovalVerdict {
  if (call?.required) return { mode: 'ask', source: 'tool' };
  const named: ApprovalTool = typeof tool === 'string' ? { name: tool, askByDefault: false } : tool;
  const name = named.name;
  const askByDefault = asksByDefault(settings, named);
  // The default of an approval rule set is "allowed" (auto); `network` turns it to "not allowed" (ask).
  const [verdict] = resolveToolAccess({ toolRules: settings.approvalRules ?? [] }, scope, [{ name, network: askByDefault === true }]);
  return { mode: verdict!.enabled ? 'auto' : 'ask', source: verdict!.source };
}

/** The tools among `tools` that wait for approval in `scope`. */
export function toolsNeedingApproval(
  settings: Pick<GuildSettings, 'approvalRules' | 'toolPins'>,
  scope: AccessScope,
  tools: ReadonlyArray<string | ApprovalTool>,
): string[] {
  const named = tools.map((t) => (typeof t === 'string' ? { name: t } : t));
  if (!settings.approvalRules?.length && !named.some((t) => t.askByDefault || t.fingerprint !== undefined)) return [];
  return named.filter((tool) => approvalMode(settings, scope, tool).mode === 'ask').map((t) => t.name);
}
