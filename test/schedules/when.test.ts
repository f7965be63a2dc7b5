/**
 * `when` as members type it: a table of phrases and cron expressions with the pattern, zone and
 * sentence each is read as, and the ones refused, each with what is wrong and examples that work.
 */
import { describe, expect, it } from 'vitest';
import { canonicalZone, parseWhen, recurrence, WHEN_EXAMPLES } from '../../src/schedules/index.js';

const NOW = Date.UTC(2025, 2, 3, 8, 0); // Monday
const read = (text: string, options: { defaultZone?: string; minIntervalMinutes?: number } = {}) =>
  parseWhen(text, { minIntervalMinutes: 15, nowMs: NOW, ...options });

// [typed, cron, zone, description]
const ACCEPTED: Array<[string, string, string, string]> = [
  ['every weekday at 09:00 Europe/Paris', '0 9 * * 1-5', 'Europe/Paris', 'every weekday at 09:00'],
  ['every 2 hours', '0 */2 * * *', 'UTC', 'every 2 hours'],
  ['daily 18:00 Europe/Paris', '0 18 * * *', 'Europe/Paris', 'every day at 18:00'],
  ['mondays 8:30 UTC', '30 8 * * 1', 'UTC', 'every Monday at 08:30'],
  ['every 15 minutes', '*/15 * * * *', 'UTC', 'every 15 minutes'],
  ['every monday and thursday at 10am Asia/Tokyo', '0 10 * * 1,4', 'Asia/Tokyo', 'every Monday and Thursday at 10:00'],
  ['weekends at noon in America/New_York', '0 12 * * 0,6', 'America/New_York', 'every weekend day at 12:00'],
  ['on the 1st of every month at 9:00 utc', '0 9 1 * *', 'UTC', 'on day 1 of every month at 09:00'],
  ['every hour at :30', '30 * * * *', 'UTC', 'every hour at :30'],
  ['mon-fri 9:30 (Europe/Berlin)', '30 9 * * 1-5', 'Europe/Berlin', 'every weekday at 09:30'],
  ['every day at 9 and 17 UTC', '0 9,17 * * *', 'UTC', 'every day at 09:00 and 17:00'],
  ['tuesday to thursday at 6:30 pm europe/london', '30 18 * * 2-4', 'Europe/London', 'every Tuesday, Wednesday and Thursday at 18:30'],
  ['every 3 hours at 15 past on weekdays America/Chicago', '15 */3 * * 1-5', 'America/Chicago', 'every 3 hours at :15 on weekdays'],
  ['daily at 18h30 Europe/Paris', '30 18 * * *', 'Europe/Paris', 'every day at 18:30'],
  ['0 9 * * 1-5 Europe/Paris', '0 9 * * 1-5', 'Europe/Paris', 'cron `0 9 * * 1-5`'],
  ['*/30 * * * *', '*/30 * * * *', 'UTC', 'cron `*/30 * * * *`'],
  ['@daily UTC', '0 0 * * *', 'UTC', '`@daily` (cron `0 0 * * *`)'],
  ['every half hour', '*/30 * * * *', 'UTC', 'every 30 minutes'],
  ['fridays at 5 pm tz=Australia/Sydney', '0 17 * * 5', 'Australia/Sydney', 'every Friday at 17:00'],
  ['at midnight every sunday UTC', '0 0 * * 0', 'UTC', 'every Sunday at 00:00'],
];

// [typed, what the refusal must say]
const REFUSED: Array<[string, RegExp]> = [
  ['every blue moon', /I do not know the word `blue`/],
  ['every weekday at 09:00', /Which time zone is that in\? Add its IANA name to `when`, like `every weekday at 09:00 Europe\/Paris`/],
  ['every 5 minutes', /runs 5 minutes apart at its closest; schedules here run at least 15 minutes apart/],
  ['0,5 9 * * * UTC', /runs 5 minutes apart at its closest/],
  ['every 45 minutes', /does not fit evenly in an hour: use 1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30 minutes/],
  ['every 5 hours', /does not fit evenly in a day/],
  ['25:00 daily UTC', /`25:00` is not a time of day/],
  ['13pm daily UTC', /with am or pm the hour is 1 to 12/],
  ['every friday UTC', /At what time\?/],
  ['0 0 9 * * *', /5 fields .* seconds and years are not supported/],
  ['0 9 * * 8 UTC', /That cron expression is not valid: .*dayOfWeek/],
  ['0 9 31 2 * UTC', /never runs/],
  ['daily 09:00 Mars/Olympus_Mons', /I do not know the word `mars\/olympus_mons`/],
  ['daily 9:00 Europe/Paris America/New_York', /Name one time zone, not 2/],
  ['daily 09:00 and 17:30 UTC', /must share their minutes/],
  ['', /Say when the question should be asked/],
];

describe('when', () => {
  it.each(ACCEPTED)('reads %j', (typed, cron, zone, description) => {
    const result = read(typed);
    expect(result).toEqual({ ok: true, when: { cron, timeZone: zone, description, zoneNamed: !/^(every 2 hours|every 15 minutes|every hour at :30|\*\/30 \* \* \* \*|every half hour)$/.test(typed) } });
  });

  it.each(REFUSED)('refuses %j, saying why and with examples that work', (typed, why) => {
    const result = read(typed);
    expect(result.ok).toBe(false);
    const problem = result.ok ? '' : result.problem;
    expect(problem).toMatch(why);
    // Every refusal but the question for a zone (which carries its own example) lists the examples.
    if (!/Which time zone/.test(problem)) expect(problem).toContain(`For example: ${WHEN_EXAMPLES}.`);
  });

  it('every example it suggests is itself accepted', () => {
    for (const example of WHEN_EXAMPLES.match(/`[^`]+`/g)!.map((e) => e.slice(1, -1))) expect(read(example).ok, example).toBe(true);
  });

  it('takes the member\'s zone from their other schedules when the phrase names none, and says it did not name one', () => {
    expect(read('every weekday at 09:00', { defaultZone: 'Asia/Tokyo' })).toEqual({ ok: true, when: { cron: '0 9 * * 1-5', timeZone: 'Asia/Tokyo', description: 'every weekday at 09:00', zoneNamed: false } });
  });

  it('the minimum interval is the operator\'s: down to 1 minute', () => {
    expect(read('every 5 minutes', { minIntervalMinutes: 1 }).ok).toBe(true);
    expect(read('every 15 minutes', { minIntervalMinutes: 30 }).ok).toBe(false);
  });

  it('knows IANA zones in any case, and nothing that only looks like one', () => {
    expect(canonicalZone('europe/paris')).toBe('Europe/Paris');
    expect(canonicalZone('UTC')).toBe('UTC');
    expect(canonicalZone('Etc/UTC')).toBe('UTC');
    expect(canonicalZone('Paris')).toBeUndefined();
    expect(canonicalZone('+01:00')).toBeUndefined();
    expect(canonicalZone('Europe/Atlantis')).toBeUndefined();
  });

  it('reads weekday 09:00 in Europe/Paris as 09:00 local on both sides of the spring change (08:00 then 07:00 UTC)', () => {
    const runs = recurrence('0 9 * * *', 'Europe/Paris').nextRuns(3, Date.UTC(2025, 2, 28, 12, 0)).map((ms) => new Date(ms).toISOString());
    expect(runs).toEqual(['2025-03-29T08:00:00.000Z', '2025-03-30T07:00:00.000Z', '2025-03-31T07:00:00.000Z']);
    const autumn = recurrence('0 9 * * *', 'Europe/Paris').nextRuns(2, Date.UTC(2025, 9, 25, 12, 0)).map((ms) => new Date(ms).toISOString());
    expect(autumn).toEqual(['2025-10-26T08:00:00.000Z', '2025-10-27T08:00:00.000Z']);
  });
});
