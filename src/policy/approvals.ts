/**
 * Which tool calls wait for a person's approval. Moderators mark a tool `ask` or `auto` per server,
 * category, channel or role (`/tools approval`), with exactly the precedence of enabling and disabling
 * tools, because the rules are stored and resolved the same way: `allow: true` is `auto`, `allow:
 * false` is `ask`, and every tool is `auto` until a rule says otherwise. Between a member's roles,
 * `ask` wins, as deny does for access: a cautious role is never undone by another.
 */
import type { GuildSettings } from '../state/guild-settings-schema.js';
import { resolveToolAccess, type AccessScope, type AccessSource } from './resolve-access.js';

export type ApprovalMode = 'ask' | 'auto';

export interface ApprovalVerdict {
  mode: ApprovalMode;
  /** Which rule decided, or `default` (auto). */
  source: AccessSource;
}

/** Whether calls to `tool` by a run in `scope` wait for Approve. */
export function approvalMode(settings: Pick<GuildSettings, 'approvalRules'>, scope: AccessScope, tool: string): ApprovalVerdict {
  const [verdict] = resolveToolAccess({ toolRules: settings.approvalRules ?? [] }, scope, [{ name: tool }]);
  return { mode: verdict!.enabled ? 'auto' : 'ask', source: verdict!.source };
}

/** The tools among `tools` that wait for approval in `scope`. */
export function toolsNeedingApproval(settings: Pick<GuildSettings, 'approvalRules'>, scope: AccessScope, tools: readonly string[]): string[] {
  if (!settings.approvalRules?.length) return [];
  return tools.filter((tool) => approvalMode(settings, scope, tool).mode === 'ask');
}
