/**
 * Schedules (pause, resume, remove: the same changes `/schedule` makes, audited as the member in the web
 * console) and the MCP tools with their pins (accept a changed tool: a named write of the rules object).
 */
import type { Hono } from 'hono';
import { pauseSchedule, removeSchedule, resumeSchedule, ScheduleGone } from '../../discord/schedules/schedule-changes.js';
import { saveFailed } from '../../discord/text/choice-answers.js';
import { pinMismatch } from '../../policy/index.js';
import type { Actor } from '../../discord/rules/audit-trail.js';
import type { ConsoleContext, ConsoleDeps, ConsoleEnv } from '../context.js';
import { html } from '../html.js';
import { discordMarkup } from '../markup.js';
import { namesFor } from '../names.js';
import { schedulesPage } from '../pages/schedules.js';
import { toolsPage } from '../pages/tools.js';
import { frameOf, page } from './guard.js';

export function moreRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const actorOf = (c: ConsoleContext): Actor => ({ id: c.var.active.session.userId, name: c.var.actorName, via: 'console' });
  const notice = (text: string, problem: boolean, names?: Parameters<typeof discordMarkup>[1]) => html`<div class="notice${problem ? ' problem' : ''}" role="status">${discordMarkup(text, names)}</div>`;

  async function showSchedules(c: ConsoleContext, answer?: { text: string; problem: boolean }, status: 200 | 404 | 503 = 200) {
    const { guild } = c.var.access;
    const schedules = await deps.schedules.store.list(guild.id);
    const names = await namesFor(deps.discord, guild, schedules.map((s) => s.ownerId));
    return page(c, schedulesPage(frameOf(c, 'Schedules', 'schedules'), guild.id, schedules, c.var.csrf, names, answer && notice(answer.text, answer.problem, names)), status);
  }

  app.get('/g/:guildId/schedules', (c) => showSchedules(c));

  app.post('/g/:guildId/schedules/:id/:action', async (c) => {
    const { guild } = c.var.access;
    const found = (await deps.schedules.store.list(guild.id)).find((s) => s.id === c.req.param('id'));
    if (!found) return showSchedules(c, { text: 'There is no such scheduled question in this server (it may have been removed meanwhile). Nothing was changed.', problem: true }, 404);
    const change = { pause: pauseSchedule, resume: resumeSchedule, remove: removeSchedule }[c.req.param('action') as 'pause'];
    if (!change) return showSchedules(c, { text: 'Use Pause, Resume or Remove. Nothing was changed.', problem: true }, 404);
    try {
      return await showSchedules(c, { text: await change(deps.schedules, actorOf(c), found), problem: false });
    } catch (error) {
      if (error instanceof ScheduleGone) return showSchedules(c, { text: error.message, problem: true }, 404);
      deps.logger.error({ err: error, guildId: guild.id }, 'console: a schedule change failed');
      return showSchedules(c, { text: saveFailed(error), problem: true }, 503);
    }
  });

  async function showTools(c: ConsoleContext, answer?: { text: string; problem: boolean }, status: 200 | 400 | 503 = 200) {
    const { guild } = c.var.access;
    const settings = await deps.rules.snapshot(guild.id);
    return page(c, toolsPage(frameOf(c, 'MCP tools', 'tools'), guild.id, deps.rules.tools, settings, c.var.csrf, answer && notice(answer.text, answer.problem)), status);
  }

  app.get('/g/:guildId/tools', (c) => showTools(c));

  app.post('/g/:guildId/tools/pin', async (c) => {
    const body = await c.req.parseBody();
    const { guild } = c.var.access;
    const tool = deps.rules.tools.find((t) => t.name === body.tool && t.fingerprint);
    const settings = await deps.rules.snapshot(guild.id);
    if (!tool?.fingerprint || !pinMismatch(settings, tool)) return showTools(c, { text: 'That tool has not changed since it was enabled (or is not from an MCP server). Nothing was changed.', problem: true }, 400);
    try {
      const saved = await deps.rules.repinTool(guild.id, actorOf(c), { tool: tool.name, pin: { fingerprint: tool.fingerprint, listing: tool.provenance?.listing } });
      return await showTools(c, { text: `✅ Done: ${saved.detail}. Where the rules enable it, runs use it from their next step.${saved.logNote}`, problem: false });
    } catch (error) {
      return showTools(c, { text: saveFailed(error), problem: true }, 503);
    }
  });
}
