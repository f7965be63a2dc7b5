/** The waiting approvals of a server, and Approve or Deny on one (through the console's approvals module). */
import type { Hono } from 'hono';
import type { ConsoleContext, ConsoleDeps, ConsoleEnv } from '../context.js';
import { html, type Html } from '../html.js';
import { discordMarkup, utcTime } from '../markup.js';
import { namesFor } from '../names.js';
import { approvalsPage } from '../pages/approvals.js';
import { problemPage } from '../pages/problem.js';
import { frameOf, page } from './guard.js';

export function approvalRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  async function show(c: ConsoleContext, notice?: Html) {
    const { guild } = c.var.access;
    const [calls, names] = await Promise.all([deps.approvals.waiting(guild.id), namesFor(deps.discord, guild)]);
    return page(c, approvalsPage(frameOf(c, 'Approvals', 'approvals'), guild.id, calls, deps.approvals.canDecide, c.var.csrf, names, notice));
  }

  app.get('/g/:guildId/approvals', (c) => show(c));

  app.post('/g/:guildId/approvals/decide', async (c) => {
    const body = await c.req.parseBody();
    const { guild } = c.var.access;
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
    const index = Number(text('index'));
    const verdict = text('verdict');
    if (!Number.isInteger(index) || index < 0 || (verdict !== 'approve' && verdict !== 'deny')) {
      return page(c, problemPage(frameOf(c, 'Approvals', 'approvals'), 'Not understood', 'Press Approve or Deny under a waiting call. Nothing was decided.'), 400);
    }
    const approved = verdict === 'approve';
    const result = await deps.approvals.decide(guild.id, text('turn'), index, { approved, by: { id: c.var.active.session.userId, name: c.var.actorName }, via: 'console' }, text('call').slice(0, 400));
    if (result.ok) return show(c, html`<div class="notice" role="status">${approved ? 'Approved: the run goes on.' : 'Denied: the run goes on without it.'}</div>`);
    const names = await namesFor(deps.discord, guild);
    const who = result.decided ? html`<p>${result.decided.approved ? 'Approved' : 'Denied'} by <strong>${result.decided.by}</strong> at <time>${utcTime(result.decided.at)}</time>.</p>` : '';
    const heading = result.status === 409 ? 'Already decided' : 'Not allowed';
    return page(c, problemPage(frameOf(c, heading, 'approvals'), heading, html`${discordMarkup(result.message, names)}${who}`, html`<p><a href="/g/${guild.id}/approvals">Back to the waiting approvals</a></p>`), result.status);
  });
}
