/** `/`: sign in, or the servers the member manages now; `/g/:guildId`: a server's overview. */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../context.js';
import { namesFor } from '../names.js';
import { overviewPage } from '../pages/overview.js';
import { serversPage, signInPage } from '../pages/servers.js';
import { manageableGuilds } from '../rights.js';
import { readSession, type SessionDeps } from '../sessions.js';
import { csrfToken } from '../csrf.js';
import { frameOf, page } from './guard.js';

export function overviewRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps, sessions: SessionDeps): void {
  app.get('/', async (c) => {
    const active = await readSession(c, sessions);
    if (!active) return page(c, signInPage());
    c.set('active', active);
    c.set('csrf', csrfToken(deps.config.sessionSecret, active.id));
    const servers = await manageableGuilds(deps.discord, active.session.userId, active.session.guildIds);
    return page(c, serversPage(frameOf(c, 'Your servers'), servers));
  });

  app.get('/g/:guildId', async (c) => {
    const { guild } = c.var.access;
    const [history, waiting] = await Promise.all([deps.usage.guildHistory(guild.id, 30, 10), deps.approvals.waiting(guild.id)]);
    const names = await namesFor(deps.discord, guild, history.topMembers.map((m) => m.userId));
    return page(c, overviewPage(frameOf(c, 'Overview', 'overview'), history, names, waiting.length));
  });
}
