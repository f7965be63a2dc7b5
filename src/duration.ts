/** Durations for people: the one format every message and log line uses. */

/** `850 ms`, `2.5 s`, `2 min 5 s`, `24 h`: whole milliseconds under a second, tenths of a second under a minute. */
export function formatMs(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms >= 3_600_000) {
    const minutes = Math.round(ms / 60_000);
    const hours = Math.floor(minutes / 60);
    return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  }
  const total = Math.round(ms / 1_000);
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}
