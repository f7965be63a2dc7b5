/**
 * The bot-wide limits Discord documents (docs/topics/rate-limits.md) beside the per-route ones:
 * - the global limit: 50 requests per second per bot token, across every route except interaction
 *   endpoints ("Interaction endpoints are not bound to the bot's Global Rate Limit": the callbacks and
 *   the interaction-token webhooks, the routes the fake serves without the bot token). Over it, 429
 *   with `X-RateLimit-Global: true`, `X-RateLimit-Scope: global`, `Retry-After` and the body
 *   `{ message, retry_after, global: true }`. Counted over a sliding second, the strictest reading.
 * - the invalid request limit: 10,000 responses of 401, 403 or 429 (but not a 429 of scope `shared`)
 *   in 10 minutes gets the IP banned for a while. The fake only counts them (`invalidRequests`).
 */
import { performance } from 'node:perf_hooks';
import { ApiError } from './api-error.js';

export interface GlobalRateLimitSettings {
  /** `record` (default) only counts; `enforce` answers 429 past the limit; `off`. */
  mode: 'off' | 'record' | 'enforce';
  /** Requests per second per bot token. Default 50. */
  perSecond: number;
}

const INVALID_WINDOW_MS = 10 * 60_000;

export class GlobalRateLimiter {
  /** When (performance.now) a request went past the limit; answered 429 only when enforcing. */
  readonly overLimit: number[] = [];
  readonly #accepted: number[] = [];
  readonly #invalid: number[] = [];

  constructor(private readonly settings: GlobalRateLimitSettings) {}

  /** Counts one request on a route bound by the global limit; throws the global 429 when enforcing and over. */
  take(): void {
    if (this.settings.mode === 'off') return;
    const now = performance.now();
    while (this.#accepted.length > 0 && now - (this.#accepted[0] as number) >= 1000) this.#accepted.shift();
    if (this.#accepted.length >= this.settings.perSecond) {
      this.overLimit.push(now);
      if (this.settings.mode === 'enforce') throw tooMany(((this.#accepted[0] as number) + 1000 - now) / 1000);
    }
    this.#accepted.push(now);
  }

  /** Notes a response; 401, 403 and 429 (unless of scope `shared`) count toward the invalid request limit. */
  noteResponse(status: number, scope: string | undefined): void {
    if (status !== 401 && status !== 403 && !(status === 429 && scope !== 'shared')) return;
    const now = performance.now();
    this.#invalid.push(now);
    while (this.#invalid.length > 0 && now - (this.#invalid[0] as number) >= INVALID_WINDOW_MS) this.#invalid.shift();
  }

  /** 401/403/429 responses in the last 10 minutes (Discord bans past 10,000). */
  get invalidRequests(): number {
    const now = performance.now();
    return this.#invalid.filter((t) => now - t < INVALID_WINDOW_MS).length;
  }
}

function tooMany(retryAfterS: number): ApiError {
  const retry = Math.max(retryAfterS, 0.001);
  const error = new ApiError(429, 0, 'You are being rate limited.', undefined, {
    'retry-after': String(Math.ceil(retry)),
    'x-ratelimit-global': 'true',
    'x-ratelimit-scope': 'global',
  }, { retry_after: Number(retry.toFixed(3)), global: true });
  error.withCode = false;
  return error;
}

/** The most calls in any window of `windowMs` (sliding), given their times in ms. */
export function peakInWindow(times: readonly number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= windowMs) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}
