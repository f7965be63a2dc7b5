/**
 * The background job of meaning search: passages without a vector of the current model are embedded
 * a batch at a time (after EMBEDDING_MODEL changed, every passage; after the embedding server was down
 * when a document was added, that document's), then the job waits and looks again, so documents added
 * by another process are caught up too. A failing server is tried again later, waiting longer each
 * time up to `maxBackoffMs`; searches meanwhile find those passages by words.
 */
import { describeError } from '../../errors.js';
import type { MeaningSearch } from '../types.js';

export interface EmbeddingSyncOptions {
  /** How long to wait after a round that found nothing to do (default 5 minutes). */
  idleMs?: number;
  /** The first wait after a failure, doubled each time (default 30 s, at most `maxBackoffMs`, 30 min). */
  backoffMs?: number;
  maxBackoffMs?: number;
  log: (level: 'info' | 'warn', message: string) => void;
}

/** A running sync; `stop` ends it after the batch in flight. */
export interface EmbeddingSync {
  /** Resolves when the round now running (or the next) has finished; for tests and shutdown. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** Start embedding what is pending, now and every `idleMs` after. */
export function startEmbeddingSync(meaning: MeaningSearch, options: EmbeddingSyncOptions): EmbeddingSync {
  const idleMs = options.idleMs ?? 300_000;
  const maxBackoffMs = options.maxBackoffMs ?? 1_800_000;
  let backoff = options.backoffMs ?? 30_000;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();

  const run = async (): Promise<void> => {
    let wait = idleMs;
    try {
      const { embedded, tokens } = await meaning.embedPending({ signal: stopping.signal });
      if (embedded > 0) options.log('info', `meaning search: embedded ${embedded} passages with ${meaning.model} (${tokens} tokens)`);
      backoff = options.backoffMs ?? 30_000;
    } catch (error) {
      if (stopping.signal.aborted) return;
      options.log('warn', `meaning search: embedding with ${meaning.model} failed (${describeError(error)}); those passages are found by words until it works, trying again in ${Math.round(backoff / 1000)} s`);
      wait = backoff;
      backoff = Math.min(maxBackoffMs, backoff * 2);
    }
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => (round = run()), wait);
    timer.unref();
  };
  round = run();

  return {
    idle: () => round,
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await round.catch(() => undefined);
    },
  };
}
