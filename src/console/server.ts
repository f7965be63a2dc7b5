/**
 * The web console's HTTP server (Hono on Node): security headers on every answer (a strict
 * Content-Security-Policy with no script at all, no framing, no referrer, nothing cached), `/healthz`,
 * the style sheet, sign-in, and a server's pages behind the guard (session, CSRF, rights now, write
 * rate). Started by the composition root in the bot's process when CONSOLE_PORT is set, or alone by
 * `npm run console`.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { describeError } from '../errors.js';
import type { ConsoleDeps, ConsoleEnv } from './context.js';
import { documentText, html } from './html.js';
import { createOAuth } from './oauth.js';
import { layout } from './pages/layout.js';
import { problemPage } from './pages/problem.js';
import { approvalRoutes } from './routes/approvals.js';
import { auditRoutes } from './routes/audit.js';
import { authRoutes } from './routes/auth.js';
import { managesGuild, signedIn } from './routes/guard.js';
import { moreRoutes } from './routes/more.js';
import { overviewRoutes } from './routes/overview.js';
import { policyRoutes } from './routes/policy.js';
import { CONSOLE_CSS } from './static/console-css.js';

/** No script, no plugin, no frame, styles and images from here only, forms posted only here. */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The console as a Hono app (what the server serves; the tests and the bench call it through real HTTP). */
export function createConsoleApp(deps: ConsoleDeps): { app: Hono<ConsoleEnv>; close(): void } {
  const { config } = deps;
  const oauth = createOAuth({ apiBaseUrl: deps.apiBaseUrl, clientId: config.clientId, clientSecret: config.clientSecret, redirectUri: `${config.publicUrl}/auth/callback` });
  const sessions = { secret: config.sessionSecret, secure: config.secure, store: deps.sessions, now: deps.now };
  const app = new Hono<ConsoleEnv>();

  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    // No page address (a sign-in code, a server's id) leaks to another site through Referer; same-origin, not no-referrer, so the browser still sends our own Origin with a form (no-referrer makes it "null").
    c.header('Referrer-Policy', 'same-origin');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    if (config.secure) c.header('Strict-Transport-Security', 'max-age=31536000');
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  });

  app.get('/healthz', (c) => c.text('ok\n'));
  app.get('/static/console.css', (c) => c.body(CONSOLE_CSS, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=3600' }));
  authRoutes(app, deps, oauth, sessions);
  app.use('/g/:guildId', signedIn(deps, sessions), managesGuild(deps));
  app.use('/g/:guildId/*', signedIn(deps, sessions), managesGuild(deps));
  overviewRoutes(app, deps, sessions);
  policyRoutes(app, deps);
  auditRoutes(app, deps);
  approvalRoutes(app, deps);
  moreRoutes(app, deps);

  app.notFound((c) => c.html(documentText(layout({ title: 'Not found' }, html`<h1>Not found</h1><p>There is no such page. <a href="/">Back to your servers</a></p>`)), 404));
  app.onError((error, c) => {
    deps.logger.error({ err: error, path: c.req.path }, 'console: a page failed');
    return c.html(documentText(problemPage({ title: 'Unavailable' }, 'Not available right now', `This page could not be made (${describeError(error)}): Discord or the storage did not answer. Nothing was changed; try again in a moment.`)), 503);
  });
  return { app, close: () => oauth.close() };
}

export interface RunningConsole {
  /** The port it listens on (the real one when 0 was asked). */
  port: number;
  /** Where it listens (for the log and the tests; people open CONSOLE_PUBLIC_URL). */
  url: string;
  close(): Promise<void>;
}

/** Serve the console on CONSOLE_HOST:CONSOLE_PORT; rejects if the port cannot be bound. */
export async function startConsole(deps: ConsoleDeps): Promise<RunningConsole> {
  const { app, close } = createConsoleApp(deps);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, port: deps.config.port, hostname: deps.config.host }, () => resolve(started));
    started.once('error', reject);
  });
  // Idle connections outlive a reverse proxy's (60 s is common) and a browser's pause between pages: a
  // server closing them first races the next request, which the browser then sends again.
  if ('keepAliveTimeout' in server) {
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  }
  const { port } = server.address() as { port: number };
  return {
    port,
    url: `http://${deps.config.host.includes(':') ? `[${deps.config.host}]` : deps.config.host}:${port}`,
    async close() {
      close();
      await new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
