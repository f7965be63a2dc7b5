/**
 * Policy: which tools a run may use where, what a channel shows and how many steps a run gets, the usage
 * limits, and the audit trail of moderators' changes. Rule logic only: no store (the stored settings are
 * read by the rules object, src/discord/rules/rules.ts), no discord.js, and no sentences for Discord: the
 * decisions are data, and the Discord layer writes them (src/discord/text/rule-text.ts, limits-text.ts,
 * audit-text.ts, usage-text.ts).
 */
export { offerOnlyWhere, type AllowedTools } from './offer-where.js';
export {
  enabledByDefault,
  safeToolNames,
  enabledToolNames,
  pinMismatch,
  pinnedFingerprint,
  pinnedListing,
  resolveToolAccess,
  ruleLocation,
  type AccessScope,
  type AccessSource,
  type PolicyTool,
  type ToolAccess,
  type ToolPins,
} from './resolve-access.js';
export { removeToolRules, setToolRule, shadowingRules, type RuleTarget } from './rule-edits.js';
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
  LIMIT_NAMES,
  effectiveLimits,
  serverLimits,
  withExemptRole,
  withLimitChange,
  type LimitChange,
  type LimitSettings,
} from './limits.js';
export { approvalMode, toolsNeedingApproval, type ApprovalCall, type ApprovalMode, type ApprovalVerdict } from './approvals.js';
export {
  MEMORY_KINDS,
  MEMORY_TOOLS,
  MEMORY_UNREADABLE,
  memorySettings,
  withMemorySetting,
  withoutMemoryOff,
  type MemoryKind,
  type MemorySettings,
} from './memory-settings.js';
export {
  DEFAULT_SCHEDULE_ACCESS,
  SCHEDULE_ACCESS,
  capProblem,
  scheduleAccess,
  scheduleRightProblem,
  type ScheduleAccess,
  type ScheduleCaps,
} from './schedules.js';
export { DEFAULT_SKILL_ACCESS, SKILL_ACCESS, changeProblem, createProblem, mayRun, skillAccess, type SkillAccess } from './skills.js';
export { ANSWER_MODES, DEFAULT_ANSWER_MODE, answerMode, withAnswerMode, type AnswerMode } from './answer-modes.js';
