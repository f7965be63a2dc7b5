/**
 * Retry policy for model calls. The SDK's own retries follow `Retry-After` without a cap and keep
 * waiting after the request is cancelled, so the SDK runs with `maxRetries: 0` and this does it instead:
 * capped exponential backoff, `Retry-After` honoured up to the cap, and a wait that an abort cuts short.
 */

export interface RetryPolicy {
  maxRetries: number;
  /** Longest single wait between attempts, whatever the server's Retry-After says. */
  maxWaitMs: number;
  /** First backoff; doubles each attempt, with jitter. */
  baseDelayMs?: number;
}

/** Sleep that rejects with the signal's reason as soon as the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Milliseconds the server asked us to wait, from `retry-after-ms` or `retry-after` (seconds or a date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** How long to wait before retry number `attempt` (0-based), capped by the policy. */
export function retryDelay(policy: RetryPolicy, attempt: number, serverHint?: number): number {
  const base = policy.baseDelayMs ?? 500;
  const backoff = base * 2 ** attempt * (0.75 + Math.random() * 0.5);
  return Math.min(policy.maxWaitMs, serverHint ?? backoff);
}
