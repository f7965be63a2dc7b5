/**
 * The checks before any server page or form: a session (else to the sign-in page), for a post its CSRF
 * token and origin (else 403, nothing done), the member's right to the server as Discord has them now
 * (else 403: the session stays, the server leaves their list), and for a post the write rate (60 a minute
 * per member, else 429). What passes is on the request for the page (`c.var`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../context.js';
import { csrfToken, csrfValid, sameOrigin } from '../csrf.js';
import { documentText, html, type Html } from '../html.js';
import { layout, type Frame, type Section } from '../pages/layout.js';
import { problemPage } from '../pages/problem.js';
import { RateWindow } from '../rate-limit.js';
import { accessTo } from '../rights.js';
import { readSession, type SessionDeps } from '../sessions.js';
import { CSRF_REFUSAL } from './auth.js';

/** Writes one member may make in a minute. */
export const WRITES_PER_MINUTE = 60;

const WHY: Record<'no-bot' | 'not-member' | 'no-right', string> = {
  'no-bot': 'The bot is not in this server (or it does not exist), so there is nothing to manage here.',
  'not-member': 'Discord says you are not a member of this server now, so you cannot manage it here.',
  'no-right': 'Managing a server here takes the Manage Server permission there, as Discord has your roles now, and you do not have it. Ask one of its administrators if that should change.',
};

/** The frame of a page for the signed-in member. */
export function frameOf(c: Context<ConsoleEnv>, title: string, section?: Section): Frame {
  const { active, csrf, access } = c.var;
  return {
    title,
    user: { name: active.session.name, csrf },
    ...(section && access ? { guild: { id: access.guild.id, name: access.guild.name, section } } : {}),
  };
}

/** Answer with a page of the console. */
export const page = (c: Context, body: Html, status: 200 | 400 | 403 | 404 | 409 | 429 | 503 = 200) => c.html(documentText(body), status);

/** Only for someone signed in: else GET goes to the sign-in page and anything else is refused. */
export function signedIn(deps: ConsoleDeps, sessions: SessionDeps): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const active = await readSession(c, sessions);
    if (!active) return c.req.method === 'GET' ? c.redirect('/', 302) : page(c, problemPage({ title: 'Signed out' }, 'Signed out', 'You are not signed in (or your session ended), so nothing was done. Sign in and try again.'), 403);
    c.set('active', active);
    c.set('csrf', csrfToken(deps.config.sessionSecret, active.id));
    if (c.req.method === 'POST') {
      const body = await c.req.parseBody();
      if (!sameOrigin(c.req.header('origin'), deps.config.publicUrl) || !csrfValid(deps.config.sessionSecret, active.id, body.csrf)) {
        return page(c, problemPage(frameOf(c, 'Refused'), 'Refused', CSRF_REFUSAL), 403);
      }
    }
    await next();
  };
}

/** Only for a member who manages the server `:guildId` now; posts also within the write rate. */
export function managesGuild(deps: ConsoleDeps): MiddlewareHandler<ConsoleEnv> {
  const writes = new RateWindow(WRITES_PER_MINUTE, 60_000, () => deps.now().getTime());
  return async (c, next) => {
    const { active } = c.var;
    // Checked once a request, even when the router runs this guard twice for it (seen for `/g/:guildId`).
    if (c.get('access')) return next();
    const checked = await accessTo(deps.discord, active.session.userId, c.req.param('guildId') ?? '');
    if (!checked.ok) return page(c, problemPage(frameOf(c, 'Not allowed'), 'You cannot manage this server', WHY[checked.why]), 403);
    c.set('access', checked.access);
    c.set('actorName', checked.access.member.name ?? active.session.name);
    if (c.req.method === 'POST' && !writes.take(active.session.userId)) {
      return page(c, problemPage(frameOf(c, 'Too many changes', 'overview'), 'Too many changes', `You made more than ${WRITES_PER_MINUTE} changes in the last minute. Wait a moment, then try again: nothing of this one was done.`), 429);
    }
    await next();
  };
}

/** A page's body with a notice above it (the answer to a change, or what was wrong with it). */
export function withNotice(notice: Html | undefined, problem: boolean, body: Html): Html {
  return notice ? html`<div class="notice${problem ? ' problem' : ''}" role="status">${notice}</div>${body}` : body;
}

export { layout };
