/**
 * How far a long `add` is, in words, for `npm run kb` and `/kb add`: the stage, what is done of how
 * much, and an estimate of the time left from the pace so far in that stage (shown once a few seconds'
 * pace is known, so the first page of a thousand does not promise an hour).
 */
import type { AddProgress } from './types.js';

/** Turns progress events into lines; one per document being added. */
export interface ProgressText {
  /** The line for this event. */
  line(progress: AddProgress): string;
}

export function progressText(now: () => number = Date.now): ProgressText {
  let stage: string | undefined;
  let startedAt = 0;
  return {
    line(progress) {
      if (progress.stage !== stage) {
        stage = progress.stage;
        startedAt = now();
      }
      const what = progress.stage === 'reading' ? 'read' : 'embedded';
      const percent = progress.total ? Math.floor((progress.done / progress.total) * 100) : 100;
      const done = `${progress.done.toLocaleString('en-US')} of ${progress.total.toLocaleString('en-US')} ${progress.unit} ${what} (${percent}%)`;
      const elapsed = now() - startedAt;
      if (progress.done === 0 || progress.done >= progress.total || elapsed < 1_000) return done;
      return `${done}, about ${duration((elapsed / progress.done) * (progress.total - progress.done))} left`;
    },
  };
}

/** 5 s, 40 s, 3 min, 1 h 5 min. */
export function duration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}
