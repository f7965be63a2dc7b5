/**
 * The vocabulary of scheduled questions, pure (no Discord, no store): `when` read into a cron pattern
 * and an IANA time zone (plain phrases or cron, checked against the minimum interval), and when each
 * occurrence falls (croner, daylight-saving changes included).
 */
export { parseWhen, WHEN_EXAMPLES, WHEN_MAX_CHARS, type When, type WhenOptions, type WhenResult } from './when.js';
export { recurrence, shortestGapMs, type Recurrence } from './recurrence.js';
export { canonicalZone, supportedZones, zonesMatching } from './time-zones.js';
