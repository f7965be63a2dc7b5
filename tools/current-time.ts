/**
 * The `current_time` tool. Models do not know today's date; this gives it from the injected clock, in
 * UTC or any IANA time zone (or a fixed offset such as UTC+05:30, which people type just as often).
 */
import { z } from 'zod';
import { defineTool } from '../src/agent/tool.js';
import { ToolError } from '../src/errors.js';

const OFFSET = /^(?:UTC|GMT)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$/i;

const parameters = z.object({
  timezone: z
    .string()
    .max(64)
    .optional()
    .describe('IANA time zone such as "Europe/Paris" or "America/New_York", or an offset such as "UTC+5:30". Default UTC.'),
});

/** The `current_time` tool. */
export const currentTimeTool = defineTool({
  name: 'current_time',
  description:
    "Get today's date and the current time, in UTC or in a given time zone. Use it whenever a question " +
    'depends on the date or time now (your own knowledge of the date is out of date).',
  parameters,
  textParameter: 'timezone',
  aliases: ['time', 'date', 'now', 'get_current_time'],
  examples: ['Europe/Paris', 'UTC', 'America/New_York'],
  async run({ timezone }, ctx) {
    const now = ctx.now();
    const requested = timezone?.trim() || 'UTC';
    const offset = OFFSET.exec(requested);
    if (offset) return describeAtOffset(now, offset);
    let zone: string;
    try {
      zone = new Intl.DateTimeFormat('en-GB', { timeZone: requested }).resolvedOptions().timeZone;
    } catch (error) {
      throw new ToolError(
        `"${requested}" is not a time zone I know. Use an IANA name such as Europe/London, Asia/Tokyo, America/Chicago or UTC, or an offset such as UTC+2.`,
        { cause: error },
      );
    }
    const offsetName = partOf(now, zone, { timeZoneName: 'longOffset' }, 'timeZoneName'); // "GMT+01:00" or "GMT"
    const minutes = offsetMinutes(offsetName);
    return `${humanDate(now, zone)} (${zone}, ${utcLabel(minutes)}). ISO 8601: ${isoAt(now, minutes)}.`;
  },
});

function describeAtOffset(now: Date, match: RegExpExecArray): string {
  const hours = Number(match[2]);
  const mins = Number(match[3] ?? 0);
  if (hours > 14 || mins > 59) {
    throw new ToolError(`"${match[0]}" is not a valid UTC offset; offsets run from UTC-12:00 to UTC+14:00.`);
  }
  const minutes = (match[1] === '-' ? -1 : 1) * (hours * 60 + mins);
  // Shifting the instant and formatting it as UTC shows the wall-clock time at that offset.
  const shifted = new Date(now.getTime() + minutes * 60_000);
  return `${humanDate(shifted, 'UTC')} (${utcLabel(minutes)}). ISO 8601: ${isoAt(now, minutes)}.`;
}

/** "Tuesday 4 March 2025, 15:05:09", assembled from parts so ICU versions cannot change the layout. */
function humanDate(date: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone, weekday: 'long', day: 'numeric', month: 'long', year: 'numeric',
    hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}, ${part('hour')}:${part('minute')}:${part('second')}`;
}

function partOf(date: Date, timeZone: string, options: Intl.DateTimeFormatOptions, type: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, ...options }).formatToParts(date);
  return parts.find((part) => part.type === type)?.value ?? '';
}

/** "GMT+05:30" → 330; "GMT" → 0. */
function offsetMinutes(name: string): number {
  const match = /([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

function utcLabel(minutes: number): string {
  if (minutes === 0) return 'UTC';
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** ISO 8601 with the zone's offset, e.g. 2025-03-04T15:05:09+01:00 (Z for UTC). */
function isoAt(now: Date, minutes: number): string {
  const local = new Date(now.getTime() + minutes * 60_000).toISOString().slice(0, 19);
  return minutes === 0 ? `${local}Z` : `${local}${utcLabel(minutes).slice(3)}`;
}
