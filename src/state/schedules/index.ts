/** Scheduled questions in the shared storage: the per-guild records, and the exactly-once claims of their occurrences. */
export { createScheduleStore, type AddResult, type ScheduleStore } from './schedule-store.js';
export type { ClaimOutcome, OccurrenceClaims, OccurrenceMark } from '../../storage/occurrence-claims.js';
export { NewScheduleSchema, ScheduleSchema, type NewSchedule, type Schedule, type SchedulePause } from './schedule-schema.js';
