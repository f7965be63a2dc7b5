/**
 * Changing a guild's tool rules, as pure functions over the rule list: one rule per tool and target
 * (a later enable/disable replaces the earlier one instead of piling up), and removal by target.
 * How a target reads in Discord is in src/discord/text/rule-text.ts.
 */
import type { ToolRule } from '../state/guild-settings-schema.js';

/** Where a rule applies: nothing set is the whole server; a role may be narrowed to a channel or category. */
export interface RuleTarget {
  channelId?: string;
  categoryId?: string;
  roleId?: string;
}

/** Whether a rule is for exactly this target (not merely overlapping it). */
export function isForTarget(rule: ToolRule, target: RuleTarget): boolean {
  return (rule.channelId ?? '') === (target.channelId ?? '')
    && (rule.categoryId ?? '') === (target.categoryId ?? '')
    && (rule.roleId ?? '') === (target.roleId ?? '');
}

/** The rule for a tool and target, without empty fields (they would not survive JSON anyway). */
export function makeRule(tool: string, allow: boolean, target: RuleTarget): ToolRule {
  return {
    tool,
    allow,
    ...(target.channelId ? { channelId: target.channelId } : {}),
    ...(target.categoryId ? { categoryId: target.categoryId } : {}),
    ...(target.roleId ? { roleId: target.roleId } : {}),
  };
}

/** Enable or disable a tool for a target, replacing the rule that target had for it. */
export function setToolRule(rules: readonly ToolRule[], tool: string, allow: boolean, target: RuleTarget): ToolRule[] {
  return [...rules.filter((r) => !(r.tool === tool && isForTarget(r, target))), makeRule(tool, allow, target)];
}

/**
 * Remove rules: for one tool or all (`tool` undefined), for one target or in every scope
 * (`target` 'everywhere'). Returns the rules kept and the rules removed.
 */
export function removeToolRules(
  rules: readonly ToolRule[],
  tool: string | undefined,
  target: RuleTarget | 'everywhere',
): { kept: ToolRule[]; removed: ToolRule[] } {
  const kept: ToolRule[] = [];
  const removed: ToolRule[] = [];
  for (const rule of rules) {
    const hit = (tool === undefined || rule.tool === tool) && (target === 'everywhere' || isForTarget(rule, target));
    (hit ? removed : kept).push(rule);
  }
  return { kept, removed };
}

/**
 * Rules for the same tool that are more specific than `target` and so still decide in some places
 * after a change at `target` (e.g. a channel rule after a server-wide disable). Role rules count as
 * more specific than any location rule, because they beat the location verdict.
 */
export function shadowingRules(rules: readonly ToolRule[], tool: string, target: RuleTarget): ToolRule[] {
  if (target.roleId) return [];
  return rules.filter((r) => {
    if (r.tool !== tool || isForTarget(r, target)) return false;
    if (r.roleId) return true;
    if (target.channelId) return false;
    if (target.categoryId) return r.channelId !== undefined;
    return r.channelId !== undefined || r.categoryId !== undefined;
  });
}
