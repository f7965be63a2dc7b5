/**
 * Policy: which tools a run may use where, what a channel shows and how many steps a run gets, the usage
 * limits, and the audit trail of moderators' changes. Rule logic only: no store (the stored settings are
 * read by the rules object, src/discord/rules.ts) and no discord.js.
 */
export { offerOnlyWhere, type AllowedTools } from './offer-where.js';
export {
  enabledByDefault,
  safeToolNames,
  enabledToolNames,
  pinMismatch,
  resolveToolAccess,
  ruleLocation,
  type AccessScope,
  type AccessSource,
  type PolicyTool,
  type ToolAccess,
} from './resolve-access.js';
export { explainAccess, describeRule, PRECEDENCE_NOTE } from './explain-access.js';
export { removeToolRules, setToolRule, shadowingRules, describeTarget, targetPhrase, type RuleTarget } from './rule-edits.js';
export { withAuditEntry, type ChangeRecord } from './audit.js';
export {
  channelSettings,
  defaultChannelSettings,
  modelIsAllowed,
  type ChannelDefaults,
  placeValue,
  DISPLAY_LEVELS,
  type ChannelSettings,
  type DisplayLevel,
  type RunScope,
  type SettingSource,
} from './channel-settings.js';
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
export { approvalMode, toolsNeedingApproval, type ApprovalMode, type ApprovalVerdict } from './approvals.js';
