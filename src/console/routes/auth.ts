/**
 * Signing in and out. `/auth/login` starts a sign-in (at most 20 a minute from one address, else 429): a
 * fresh `state` and PKCE verifier kept in the shared storage for 10 minutes, the `state` also in a
 * cookie that binds it to this browser, then Discord's authorize page. `/auth/callback` takes it once:
 * the `state` must match both, or the sign-in is refused (403) and nothing is exchanged. Signing out is a
 * POST with the CSRF token and ends every session of the member.
 */
import type { Context, Hono } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import { describeError } from '../../errors.js';
import type { ConsoleDeps, ConsoleEnv } from '../context.js';
import { csrfValid, sameOrigin } from '../csrf.js';
import { documentText, html } from '../html.js';
import { newState, pkcePair, SignInError, type OAuth } from '../oauth.js';
import { problemPage } from '../pages/problem.js';
import { RateWindow } from '../rate-limit.js';
import { cookieOptions, endSessions, readSession, signInCookie, startSession, type SessionDeps } from '../sessions.js';

/** What a form post without a valid CSRF token (or from another site) hears. */
export const CSRF_REFUSAL = 'This form did not come from a console page of yours (its security token is missing or wrong), so nothing was done. Reload the page and try again.';

/** A sign-in not finished within this long must start again. */
const SIGN_IN_MS = 10 * 60_000;
/** Sign-ins one address may start in a minute. */
export const SIGN_INS_PER_MINUTE = 20;

export function authRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps, oauth: OAuth, sessions: SessionDeps): void {
  const { config } = deps;
  const starts = new RateWindow(SIGN_INS_PER_MINUTE, 60_000, () => deps.now().getTime());
  const refuse = (heading: string, message: string, status: 400 | 403 | 429 | 503) => (c: Context) =>
    c.html(documentText(problemPage({ title: heading }, heading, message, html`<p><a class="button" href="/auth/login">Sign in again</a></p>`)), status);

  app.get('/auth/login', async (c) => {
    // The socket's address (@hono/node-server's request); behind a reverse proxy, the proxy's.
    const address = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress ?? 'unknown';
    if (!starts.take(address)) return refuse('Too many sign-ins', `More than ${SIGN_INS_PER_MINUTE} sign-ins were started from your address in the last minute. Wait a minute, then sign in again.`, 429)(c);
    const state = newState();
    const { verifier, challenge } = pkcePair();
    await deps.sessions.savePending(state, { verifier, createdAt: deps.now().getTime() }, SIGN_IN_MS);
    await setSignedCookie(c, signInCookie(config.secure), state, config.sessionSecret, cookieOptions(config.secure, SIGN_IN_MS / 1000));
    return c.redirect(oauth.authorizeUrl(state, challenge), 302);
  });

  app.get('/auth/callback', async (c) => {
    const state = c.req.query('state') ?? '';
    const bound = await getSignedCookie(c, config.sessionSecret, signInCookie(config.secure));
    deleteCookie(c, signInCookie(config.secure), { path: '/', secure: config.secure });
    // Checked before anything else: an answer for another browser's sign-in (or a forged one) exchanges nothing.
    if (!state || !bound || bound !== state) return refuse('Sign-in refused', 'This sign-in answer does not belong to the sign-in this browser started (its state does not match), so it was refused. Start again from the sign-in button.', 403)(c);
    const pending = await deps.sessions.takePending(state);
    if (!pending) return refuse('Sign-in expired', 'This sign-in was started more than 10 minutes ago, or was already used. Start again from the sign-in button.', 403)(c);
    if (c.req.query('error')) return refuse('Sign-in cancelled', 'Discord says the sign-in was not authorized, so you are not signed in. Sign in again and choose Authorize to use the console.', 403)(c);
    const code = c.req.query('code');
    if (!code) return refuse('Sign-in refused', 'Discord sent no sign-in code. Start again from the sign-in button.', 400)(c);
    try {
      const who = await oauth.signIn(code, pending.verifier);
      await startSession(c, sessions, who);
      deps.logger.info({ userId: who.userId, servers: who.guildIds.length }, 'console: signed in');
      return c.redirect('/', 302);
    } catch (error) {
      if (error instanceof SignInError) return refuse('Sign-in failed', error.message, 403)(c);
      deps.logger.error({ err: error }, 'console: a sign-in failed');
      return refuse('Sign-in failed', `Signing in did not work (${describeError(error)}). Try again in a moment.`, 503)(c);
    }
  });

  app.post('/auth/logout', async (c) => {
    const active = await readSession(c, sessions);
    const body = await c.req.parseBody();
    if (!active || !sameOrigin(c.req.header('origin'), config.publicUrl) || !csrfValid(config.sessionSecret, active.id, body.csrf)) {
      return c.html(documentText(problemPage({ title: 'Refused' }, 'Refused', CSRF_REFUSAL)), 403);
    }
    await endSessions(c, sessions, active.session.userId);
    return c.redirect('/', 302);
  });
}
