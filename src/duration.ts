/** Durations for people: the one format every message and log line uses. */

/** `850 ms`, `2.5 s`, `2 min 5 s`: whole milliseconds under a second, tenths of a second under a minute. */
export function formatMs(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const total = Math.round(ms / 1_000);
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}
