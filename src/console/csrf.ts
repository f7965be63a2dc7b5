/**
 * CSRF tokens: every form carries a hidden `csrf` field whose value is an HMAC of the session's id with
 * the console's secret, so a page on another site, which can make the browser post but cannot read our
 * pages, cannot know it. A post whose token is missing or wrong is refused (403) before anything else
 * happens; so is one whose `Origin` header names another site.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The token for a session (the same for every form of that session). */
export function csrfToken(secret: string, sessionId: string): string {
  return createHmac('sha256', secret).update(`csrf:${sessionId}`).digest('base64url');
}

/** Whether `given` is the session's token (compared in constant time). */
export function csrfValid(secret: string, sessionId: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length === 0 || given.length > 100) return false;
  const expected = Buffer.from(csrfToken(secret, sessionId));
  const got = Buffer.from(given);
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** Whether a request's `Origin` (when the browser sent one) is the console's own. */
export function sameOrigin(origin: string | undefined, publicUrl: string): boolean {
  return origin === undefined || origin === new URL(publicUrl).origin;
}
