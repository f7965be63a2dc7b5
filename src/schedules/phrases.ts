/**
 * Plain `when` phrases into 5-field cron patterns: "every weekday at 09:00", "every 2 hours", "daily
 * 18:00", "mondays 8:30", "every monday and thursday at 10am", "weekends at noon", "every 15 minutes",
 * "on the 1st of every month at 9:00". The time zone is taken off before (when.ts). A phrase is read
 * word by word; a word it does not know is named back to the person rather than guessed at.
 */
import { DAY_LABELS, dayOfMonth, dayOfWeek, formatTime, intervalUnit, timeOfDay, type TimeOfDay } from './phrase-words.js';

/** A phrase read: its cron pattern, a sentence for it, and whether a time zone changes what it means. */
export type PhraseResult = { cron: string; description: string; needsZone: boolean } | { problem: string };

const FILLER = new Set(['every', 'each', 'at', 'on', 'the', 'of', 'a', 'an', 'and', '&', 'in', 'past']);
const WEEKDAYS = [1, 2, 3, 4, 5];

interface Reading {
  interval?: { n: number; unit: 'minute' | 'hour' };
  times: TimeOfDay[];
  days: Set<number>;
  monthDays: number[];
  minuteOfHour?: number;
  dayWords: boolean;
  weekly: boolean;
  monthly: boolean;
}

/** Read a phrase (lower case, zone removed). */
export function readPhrase(phrase: string): PhraseResult {
  const words = phrase.replace(/,/g, ' and ').split(/\s+/).filter(Boolean).flatMap(splitDayRange);
  const r: Reading = { times: [], days: new Set(), monthDays: [], dayWords: false, weekly: false, monthly: false };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const previous = words[i - 1] ?? '';
    const afterEvery = previous === 'every' || previous === 'each';
    const interval = afterEvery ? readInterval(words, i) : undefined;
    if (interval) {
      if (r.interval) return { problem: 'Give one interval (say `every 2 hours`, not two of them).' };
      r.interval = interval.interval;
      i += interval.used - 1;
      continue;
    }
    if (word === 'hourly') r.interval = { n: 1, unit: 'hour' };
    else if (/^(day|days|daily)$/.test(word)) r.dayWords = true;
    else if (/^(week|weeks|weekly)$/.test(word)) r.weekly = true;
    else if (/^(month|months|monthly)$/.test(word)) r.monthly = true;
    else if (/^(weekday|weekdays|workday|workdays)$/.test(word)) WEEKDAYS.forEach((d) => r.days.add(d));
    else if (/^(weekend|weekends)$/.test(word)) [0, 6].forEach((d) => r.days.add(d));
    else if (dayOfWeek(word) !== undefined) {
      const from = dayOfWeek(word)!;
      const to = /^(to|through|thru|until|-)$/.test(words[i + 1] ?? '') ? dayOfWeek(words[i + 2] ?? '') : undefined;
      if (to !== undefined) {
        for (let d = from; ; d = (d + 1) % 7) {
          r.days.add(d);
          if (d === to) break;
        }
        i += 2;
      } else r.days.add(from);
    } else if (dayOfMonth(word) !== undefined) r.monthDays.push(dayOfMonth(word)!);
    else if (word === 'day' && /^\d{1,2}$/.test(words[i + 1] ?? '')) r.monthDays.push(Number(words[++i]));
    else if (/^:\d{2}$/.test(word) || (word === 'minute' && /^\d{1,2}$/.test(words[i + 1] ?? '')) || (/^\d{1,2}$/.test(word) && words[i + 1] === 'past')) {
      const minute = Number(word === 'minute' ? words[++i] : word.replace(':', ''));
      if (minute > 59) return { problem: `\`${word}\` is not a minute of the hour (00 to 59).` };
      r.minuteOfHour = minute;
    } else if (FILLER.has(word)) continue;
    else {
      const bare = previous === 'at' || (previous === 'and' && r.times.length > 0);
      const time = timeOfDay(words, i, bare);
      if (time && 'problem' in time) return time;
      if (!time) return { problem: `I do not know the word \`${word.slice(0, 30)}\` in a schedule.` };
      r.times.push(time.time);
      i += time.used - 1;
    }
  }
  return compose(r);
}

/** `mon-fri` and `monday-friday` as three words, so a range reads the same either way. */
function splitDayRange(word: string): string[] {
  const parts = word.split('-');
  return parts.length === 2 && dayOfWeek(parts[0]!) !== undefined && dayOfWeek(parts[1]!) !== undefined ? [parts[0]!, '-', parts[1]!] : [word];
}

/** `15 minutes`, `2 hours`, `15min`, `2h`, `minute`, `hour`, `half hour` right after `every`. */
function readInterval(words: readonly string[], at: number): { interval: Reading['interval'] & object; used: number } | undefined {
  const word = words[at]!;
  const unit = intervalUnit(word);
  if (unit && word.length > 1) return { interval: { n: 1, unit }, used: 1 };
  if (word === 'half' && /^(hour|an)$/.test(words[at + 1] ?? '')) return { interval: { n: 30, unit: 'minute' }, used: words[at + 1] === 'an' ? 3 : 2 };
  const glued = /^(\d{1,4})([a-z]+)$/.exec(word);
  if (glued && intervalUnit(glued[2]!)) return { interval: { n: Number(glued[1]), unit: intervalUnit(glued[2]!)! }, used: 1 };
  const next = intervalUnit(words[at + 1] ?? '');
  if (/^\d{1,4}$/.test(word) && next) return { interval: { n: Number(word), unit: next }, used: 2 };
  return undefined;
}

function compose(r: Reading): PhraseResult {
  const days = [...r.days].sort((a, b) => a - b);
  const dayField = days.length === 0 || days.length === 7 ? '*' : cronList(days);
  const onDays = dayField === '*' ? '' : ` on ${dayPhrase(days, true)}`;
  if (r.interval) {
    if (r.times.length > 0 || r.monthDays.length > 0) return { problem: 'Say either an interval (`every 2 hours`) or times of day (`daily at 09:00`), not both.' };
    let { n, unit } = r.interval;
    if (unit === 'minute' && n >= 60 && n % 60 === 0) [n, unit] = [n / 60, 'hour'];
    if (n < 1) return { problem: 'An interval must be at least 1.' };
    if (unit === 'minute') {
      if (60 % n !== 0) return { problem: `Every ${n} minutes does not fit evenly in an hour: use 1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30 minutes, or a cron expression.` };
      if (r.minuteOfHour !== undefined) return { problem: 'A minute of the hour goes with an interval of hours (`every 2 hours at :30`).' };
      return { cron: `${n === 1 ? '*' : `*/${n}`} * * * ${dayField}`, description: `every ${n === 1 ? 'minute' : `${n} minutes`}${onDays}`, needsZone: dayField !== '*' };
    }
    if (24 % n !== 0) return { problem: `Every ${n} hours does not fit evenly in a day: use 1, 2, 3, 4, 6, 8 or 12 hours, or a cron expression.` };
    const minute = r.minuteOfHour ?? 0;
    const at = minute ? ` at :${String(minute).padStart(2, '0')}` : '';
    return { cron: `${minute} ${n === 1 ? '*' : `*/${n}`} * * ${dayField}`, description: `every ${n === 1 ? 'hour' : `${n} hours`}${at}${onDays}`, needsZone: dayField !== '*' };
  }
  if (r.times.length === 0) {
    if (r.dayWords || r.weekly || r.monthly || days.length || r.monthDays.length) return { problem: 'At what time? Add one, like `at 09:00`.' };
    return { problem: 'I found no time or interval in it.' };
  }
  const minutes = new Set(r.times.map((t) => t.minute));
  if (minutes.size > 1) return { problem: 'Times in one schedule must share their minutes (`09:00 and 17:00`, not `09:00 and 17:30`): make two schedules, or use a cron expression.' };
  const hours = [...new Set(r.times.map((t) => t.hour))].sort((a, b) => a - b);
  const timeText = listWords(hours.map((hour) => formatTime({ hour, minute: r.times[0]!.minute })));
  const head = `${r.times[0]!.minute} ${cronList(hours)}`;
  if (r.monthDays.length > 0 || r.monthly) {
    if (r.monthDays.length === 0) return { problem: 'Which day of the month? Say `on the 1st of every month at 09:00`.' };
    if (days.length > 0) return { problem: 'Give days of the week or days of the month, not both (or use a cron expression).' };
    const monthDays = [...new Set(r.monthDays)].sort((a, b) => a - b);
    return { cron: `${head} ${cronList(monthDays)} * *`, description: `on day ${listWords(monthDays.map(String))} of every month at ${timeText}`, needsZone: true };
  }
  if (r.weekly && days.length === 0) return { problem: 'Which day of the week? Say `every friday at 17:00`.' };
  return { cron: `${head} * * ${dayField}`, description: `every ${dayField === '*' ? 'day' : dayPhrase(days, false)} at ${timeText}`, needsZone: true };
}

/** `1-5`, `0,6`, `1,3,5`: runs of three or more as ranges. */
function cronList(values: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    parts.push(j - i >= 2 ? `${values[i]}-${values[j]}` : values.slice(i, j + 1).join(','));
    i = j + 1;
  }
  return parts.join(',');
}

/** `weekday`, `weekend day`, `Monday and Thursday` (plural after "on": `weekdays`, `Mondays and Thursdays`). */
function dayPhrase(days: number[], plural: boolean): string {
  const s = plural ? 's' : '';
  if (days.join() === WEEKDAYS.join()) return `weekday${s}`;
  if (days.join() === '0,6') return plural ? 'weekends' : 'weekend day';
  return listWords(days.map((d) => `${DAY_LABELS[d]}${s}`));
}

function listWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
