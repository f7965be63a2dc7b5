/**
 * Tool policy and moderation: which tools a run may use where (resolved per step from the guild's
 * settings), and the pieces `/tools` and `/settings` share. `main.ts` wires
 * `createToolPolicy(storage.guildSettings, toolbox.tools)` into BotContext.allowedTools.
 */
export { createToolPolicy, type AllowedTools } from './tool-policy.js';
export {
  enabledToolNames,
  resolveToolAccess,
  ruleLocation,
  type AccessScope,
  type AccessSource,
  type PolicyTool,
  type ToolAccess,
} from './resolve-access.js';
export { explainAccess, describeRule, PRECEDENCE_NOTE } from './explain-access.js';
export { removeToolRules, setToolRule, shadowingRules, describeTarget, targetPhrase, type RuleTarget } from './rule-edits.js';
export { formatAuditEntry, formatAuditLog, withAuditEntry, type ChangeRecord } from './audit.js';
export {
  LIMIT_INFO,
  LIMIT_NAMES,
  describeLimitChange,
  describeServerLimits,
  describeValue,
  effectiveLimits,
  serverLimits,
  withExemptRole,
  withLimitChange,
  type LimitChange,
  type LimitSettings,
} from './limits.js';
export { budgetStopNote, guildUsageText, memberUsageText, refusalText, relativeTime } from './usage-text.js';
