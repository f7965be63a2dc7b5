/**
 * The per-channel message rate limit model (about 5 messages per 5 s for a bot in one channel), with
 * the response Discord documents (docs/topics/rate-limits.md): on 429 the body
 * `{ message, retry_after, global }` (a `code` only for some limits, none here), `Retry-After` and the
 * `X-RateLimit-*` headers including `X-RateLimit-Scope: user` (a per-bot route limit); on success the
 * `X-RateLimit-*` headers, so discord.js queues ahead of the limit as it does against Discord.
 */
import { performance } from 'node:perf_hooks';
import { ApiError } from './api-error.js';
import type { RateLimitHit } from './records.js';

export interface RateLimitSettings {
  /** `record` (default) only notes bursts; `enforce` answers 429 and sends the headers; `off`. */
  mode: 'off' | 'record' | 'enforce';
  limit: number;
  windowMs: number;
}

export class ChannelRateLimiter {
  readonly hits: RateLimitHit[] = [];
  readonly #sent = new Map<string, number[]>();

  constructor(private readonly settings: RateLimitSettings) {}

  /**
   * Counts one bot message in `channelId`. Throws the 429 ApiError when enforcing and over the limit;
   * otherwise returns the headers for the successful response (none unless enforcing).
   */
  take(channelId: string): Record<string, string> {
    const { mode, limit, windowMs } = this.settings;
    if (mode === 'off') return {};
    const now = performance.now();
    const recent = (this.#sent.get(channelId) ?? []).filter((t) => now - t < windowMs);
    this.#sent.set(channelId, recent);
    const enforced = mode === 'enforce';
    if (recent.length >= limit) {
      this.hits.push({ channelId, at: now, enforced });
      if (enforced) throw this.#tooMany(((recent[0] as number) + windowMs - now) / 1000);
    }
    recent.push(now);
    if (!enforced) return {};
    const resetAfter = ((recent[0] as number) + windowMs - now) / 1000;
    return this.#headers(Math.max(limit - recent.length, 0), resetAfter);
  }

  #headers(remaining: number, resetAfterS: number): Record<string, string> {
    return {
      'x-ratelimit-limit': String(this.settings.limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': ((Date.now() / 1000) + resetAfterS).toFixed(3),
      'x-ratelimit-reset-after': resetAfterS.toFixed(3),
      // "non-inclusive of top-level resources": one bucket name for every channel's message route.
      'x-ratelimit-bucket': 'fake-channel-messages',
    };
  }

  #tooMany(retryAfterS: number): ApiError {
    const retry = Math.max(retryAfterS, 0.001);
    const error = new ApiError(429, 0, 'You are being rate limited.', undefined, {
      ...this.#headers(0, retry),
      'retry-after': String(Math.ceil(retry)),
      'x-ratelimit-scope': 'user',
    }, { retry_after: Number(retry.toFixed(3)), global: false });
    error.withCode = false;
    return error;
  }
}
