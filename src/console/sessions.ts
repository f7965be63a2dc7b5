/**
 * Signed-in sessions: a random id in a signed, HttpOnly, SameSite=Lax cookie (`Secure`, and named
 * `__Host-…`, when the console is served over https), the session itself in the shared storage under the
 * id's hash. A session ends 12 hours after its last request, or everywhere at once when its member signs
 * out. Nothing of Discord's (no access token) is kept in it: only who signed in and which servers they
 * listed, which say where to look, never what they may do.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import type { ConsoleSession, ConsoleSessionStore } from '../state/index.js';

/** A session ends this long after its last request. */
export const IDLE_MS = 12 * 60 * 60_000;
/** A request renews the idle timeout (and the cookie) at most this often, so reading pages does not write on every request. */
const TOUCH_EVERY_MS = 5 * 60_000;

/** A session as a request sees it: its id (for the CSRF token) and what is stored. */
export interface ActiveSession {
  id: string;
  session: ConsoleSession;
}

/** What the cookies need: the secret, whether to mark them Secure, the store and the clock. */
export interface SessionDeps {
  secret: string;
  secure: boolean;
  store: ConsoleSessionStore;
  now: () => Date;
}

/** The cookie's name: `__Host-` makes the browser refuse it unless Secure, host-only and for `/`. */
export const sessionCookie = (secure: boolean) => (secure ? '__Host-tw_session' : 'tw_session');
/** The cookie that binds a sign-in in progress (its `state`) to this browser. */
export const signInCookie = (secure: boolean) => (secure ? '__Host-tw_signin' : 'tw_signin');

/** The attributes of both cookies. */
export const cookieOptions = (secure: boolean, maxAgeSeconds: number) => ({ httpOnly: true, secure, sameSite: 'Lax' as const, path: '/', maxAge: maxAgeSeconds });

/** Start a session for a member who signed in, and set its cookie. */
export async function startSession(c: Context, deps: SessionDeps, who: Omit<ConsoleSession, 'v' | 'createdAt' | 'seenAt'>): Promise<void> {
  const id = randomBytes(32).toString('base64url');
  const at = deps.now().getTime();
  await deps.store.create(id, { v: 1, ...who, createdAt: at, seenAt: at }, IDLE_MS);
  await setSignedCookie(c, sessionCookie(deps.secure), id, deps.secret, cookieOptions(deps.secure, IDLE_MS / 1000));
}

/** The request's session, if its cookie is genuine and the session still exists; renews it now and then. */
export async function readSession(c: Context, deps: SessionDeps): Promise<ActiveSession | undefined> {
  const id = await getSignedCookie(c, deps.secret, sessionCookie(deps.secure));
  if (!id) return undefined;
  const session = await deps.store.get(id);
  if (!session) return undefined;
  const now = deps.now().getTime();
  if (now - session.seenAt >= TOUCH_EVERY_MS) {
    const renewed = { ...session, seenAt: now };
    await deps.store.touch(id, renewed, IDLE_MS);
    await setSignedCookie(c, sessionCookie(deps.secure), id, deps.secret, cookieOptions(deps.secure, IDLE_MS / 1000));
    return { id, session: renewed };
  }
  return { id, session };
}

/** Sign out: every session of the member ends, in every browser, and this one's cookie goes. */
export async function endSessions(c: Context, deps: SessionDeps, userId: string): Promise<void> {
  await deps.store.endAllOf(userId);
  deleteCookie(c, sessionCookie(deps.secure), { path: '/', secure: deps.secure });
}
