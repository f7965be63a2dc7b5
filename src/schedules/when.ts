/**
 * `when`, as a member types it in `/schedule add`: a plain phrase ("every weekday at 09:00
 * Europe/Paris", "every 2 hours", "mondays 8:30") or a cron expression ("0 9 * * 1-5 UTC"), with an
 * IANA time zone named anywhere in it. Read into a cron pattern and a zone, checked (croner parses
 * the pattern; it must run again, and no two runs may be closer than the minimum interval), or
 * refused with what was wrong and examples that work.
 */
import { readPhrase } from './phrases.js';
import { recurrence, shortestGapMs } from './recurrence.js';
import { canonicalZone } from './time-zones.js';

/** A schedule's timing, read and checked. */
export interface When {
  /** 5-field cron pattern (minute hour day-of-month month day-of-week). */
  cron: string;
  /** IANA time zone the pattern is read in. */
  timeZone: string;
  /** A sentence for people: `every weekday at 09:00`, or the cron pattern. */
  description: string;
  /** Whether the member named the zone (else it came from their other schedules, or is UTC for a plain interval). */
  zoneNamed: boolean;
}

export type WhenResult = { ok: true; when: When } | { ok: false; problem: string };

export interface WhenOptions {
  /** The zone for a phrase that names none but needs one (the member's other schedules' zone); none: ask. */
  defaultZone?: string;
  /** Fewest minutes between two runs (SCHEDULE_MIN_INTERVAL_MINUTES). */
  minIntervalMinutes: number;
  /** Now, for the runs the interval check looks at. */
  nowMs: number;
}

/** What a refusal suggests instead. */
export const WHEN_EXAMPLES = '`every weekday at 09:00 Europe/Paris`, `every 2 hours`, `daily 18:00 UTC`, `mondays 8:30 America/New_York`, or a cron expression such as `0 9 * * 1-5 Europe/Paris`';

/** Longest `when` read. */
export const WHEN_MAX_CHARS = 100;

const NICKNAMES: Record<string, string> = {
  '@hourly': '0 * * * *', '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@weekly': '0 0 * * 0', '@monthly': '0 0 1 * *', '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *',
};

/** Read and check `text`. */
export function parseWhen(text: string, options: WhenOptions): WhenResult {
  const typed = text.replace(/\s+/g, ' ').trim();
  if (!typed) return refuse('Say when the question should be asked.');
  if (typed.length > WHEN_MAX_CHARS) return refuse(`That is ${typed.length} characters; a schedule is at most ${WHEN_MAX_CHARS}.`);
  const zones: string[] = [];
  const rest: string[] = [];
  for (const word of typed.split(' ')) {
    const bare = word.replace(/^[([]+|[)\],.]+$/g, '').replace(/^(cron_tz|tz|timezone)=/i, '');
    const zone = canonicalZone(bare);
    if (zone) zones.push(zone);
    else rest.push(word);
  }
  if (new Set(zones).size > 1) return refuse(`Name one time zone, not ${zones.length} (${zones.join(', ')}).`);
  // "in Europe/Paris", "Paris time": the joining words go with the zone.
  while (zones.length && /^(in|time|tz)$/i.test(rest.at(-1) ?? '')) rest.pop();
  const read = readPattern(rest.join(' '));
  if ('problem' in read) return refuse(read.problem);
  const timeZone = zones[0] ?? options.defaultZone ?? (read.needsZone ? undefined : 'UTC');
  if (!timeZone) {
    return refuse('Which time zone is that in? Add its IANA name to `when`, like `every weekday at 09:00 Europe/Paris` (others: `America/New_York`, `Asia/Tokyo`, `UTC`).', false);
  }
  let runs;
  try {
    runs = recurrence(read.cron, timeZone);
  } catch (error) {
    return refuse(`That cron expression is not valid: ${String((error as Error).message).replace(/^CronPattern:\s*/, '')}.`);
  }
  if (runs.next(options.nowMs) === undefined) return refuse('That never runs (no such date comes again).');
  const gap = shortestGapMs(runs, options.nowMs);
  if (gap !== undefined && gap < options.minIntervalMinutes * 60_000) {
    return refuse(`That runs ${Math.round(gap / 60_000)} minute${gap === 60_000 ? '' : 's'} apart at its closest; schedules here run at least ${options.minIntervalMinutes} minutes apart.`);
  }
  return { ok: true, when: { cron: read.cron, timeZone, description: read.description, zoneNamed: zones.length > 0 } };
}

/** A cron expression (or `@daily`), else a phrase. */
function readPattern(text: string): { cron: string; description: string; needsZone: boolean } | { problem: string } {
  const words = text.toLowerCase().split(' ').filter(Boolean);
  if (words.length === 1 && words[0]!.startsWith('@')) {
    const cron = NICKNAMES[words[0]!];
    return cron ? { cron, description: `\`${words[0]}\` (cron \`${cron}\`)`, needsZone: true } : { problem: `\`${words[0]!.slice(0, 20)}\` is not a cron nickname (@hourly, @daily, @weekly, @monthly, @yearly).` };
  }
  const field = /^[\d*,/-]+$/;
  if (words.length >= 5 && words.length <= 7 && field.test(words[0]!) && field.test(words[1]!) && words.every((w) => /^[\w*,/#?-]+$/.test(w))) {
    if (words.length !== 5) return { problem: 'A cron expression here has 5 fields (minute hour day-of-month month day-of-week): seconds and years are not supported.' };
    const cron = words.join(' ');
    const [, hour, dom, , dow] = words;
    return { cron, description: `cron \`${cron}\``, needsZone: hour !== '*' || dom !== '*' || dow !== '*' };
  }
  return readPhrase(words.join(' '));
}

function refuse(problem: string, withExamples = true): WhenResult {
  return { ok: false, problem: withExamples ? `${problem} For example: ${WHEN_EXAMPLES}.` : problem };
}
