/**
 * The words of a `when` phrase, read one at a time: times of day (`09:00`, `9am`, `6:30 pm`, `18h30`,
 * `noon`), days (`monday`, `mon`, `mondays`, `weekdays`, `weekend`), days of the month (`1st`, `15th`)
 * and intervals (`15 minutes`, `2 hours`). phrases.ts puts them together into a cron pattern.
 */

/** A time of day on the 24-hour clock. */
export interface TimeOfDay {
  hour: number;
  minute: number;
}

const DAY_NAMES: Record<string, number> = {
  sunday: 0, sun: 0, monday: 1, mon: 1, tuesday: 2, tue: 2, tues: 2, wednesday: 3, wed: 3,
  thursday: 4, thu: 4, thur: 4, thurs: 4, friday: 5, fri: 5, saturday: 6, sat: 6,
};

/** The weekday a word names (0 Sunday … 6 Saturday), plurals too (`mondays`), or undefined. */
export function dayOfWeek(word: string): number | undefined {
  const bare = word.replace(/'?s$/, '');
  return DAY_NAMES[word] ?? (bare.length >= 3 ? DAY_NAMES[bare] : undefined);
}

/** Canonical English names, for descriptions. */
export const DAY_LABELS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/**
 * A time of day starting at `words[at]`: the time and how many words it took (`9 am` is two), or
 * undefined. `bare` also reads a lone hour (`at 9`), which only means a time after `at`.
 */
export function timeOfDay(words: readonly string[], at: number, bare = false): { time: TimeOfDay; used: number } | { problem: string } | undefined {
  const word = words[at] ?? '';
  const next = words[at + 1] ?? '';
  if (word === 'noon' || word === 'midday') return { time: { hour: 12, minute: 0 }, used: 1 };
  if (word === 'midnight') return { time: { hour: 0, minute: 0 }, used: 1 };
  let match = /^(\d{1,2})(?::|\.|h)(\d{2})$/.exec(word) ?? /^(\d{1,2})h$/.exec(word);
  if (match) {
    const meridiem = /^(am|pm|a\.m\.|p\.m\.)$/.test(next) ? next : undefined;
    return clock(Number(match[1]), Number(match[2] ?? 0), meridiem, meridiem ? 2 : 1, word);
  }
  match = /^(\d{1,2})(?::(\d{2}))?(am|pm|a\.m\.|p\.m\.)$/.exec(word);
  if (match) return clock(Number(match[1]), Number(match[2] ?? 0), match[3], 1, word);
  match = /^(\d{1,2})$/.exec(word);
  if (match && /^(am|pm|a\.m\.|p\.m\.)$/.test(next)) return clock(Number(match[1]), 0, next, 2, `${word} ${next}`);
  if (match && bare) return clock(Number(match[1]), 0, undefined, 1, word);
  return undefined;
}

function clock(hour: number, minute: number, meridiem: string | undefined, used: number, typed: string): { time: TimeOfDay; used: number } | { problem: string } {
  if (meridiem) {
    if (hour < 1 || hour > 12) return { problem: `\`${typed}\` is not a time: with am or pm the hour is 1 to 12.` };
    hour = (hour % 12) + (meridiem.startsWith('p') ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return { problem: `\`${typed}\` is not a time of day (00:00 to 23:59).` };
  return { time: { hour, minute }, used };
}

/** A day of the month (`1st`, `15th`, `day 3` is read by the caller), or undefined. */
export function dayOfMonth(word: string): number | undefined {
  const match = /^(\d{1,2})(st|nd|rd|th)$/.exec(word);
  if (!match) return undefined;
  const day = Number(match[1]);
  return day >= 1 && day <= 31 ? day : undefined;
}

/** An interval unit: minutes or hours (`m`, `min`, `mins`, `minutes`, `h`, `hr`, `hours`), or undefined. */
export function intervalUnit(word: string): 'minute' | 'hour' | undefined {
  if (/^(m|min|mins|minute|minutes)$/.test(word)) return 'minute';
  if (/^(h|hr|hrs|hour|hours)$/.test(word)) return 'hour';
  return undefined;
}

/** `HH:MM`, for descriptions. */
export function formatTime(time: TimeOfDay): string {
  return `${String(time.hour).padStart(2, '0')}:${String(time.minute).padStart(2, '0')}`;
}
