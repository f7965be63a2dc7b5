/**
 * The policy page and its forms. Each change is one of the rules object's named writes, as the member
 * acting in the web console (audited "(in the web console)"), with the values checked and answered in
 * the commands' own words (src/discord/text/choice-answers.ts, setting-answers.ts): a wrong value is a
 * 400 page saying what to choose, with nothing saved.
 */
import type { Hono } from 'hono';
import { cleanText } from '../../agent/clean-text.js';
import { approvalAnswer, chooseTool, choosableModels, EVERYONE_ROLE_PROBLEM, modelProblem, saveFailed, toolModeAnswer } from '../../discord/text/choice-answers.js';
import { answersProblem, displayProblem, memoryProblem, MEMORY_OFF_EFFECT, personaProblem, scheduleAccessProblem, settingAnswer } from '../../discord/text/setting-answers.js';
import { MEMORY_KINDS, modelIsAllowed, type AnswerMode, type DisplayLevel, type RuleTarget, type ScheduleAccess } from '../../policy/index.js';
import type { Actor } from '../../discord/rules/audit-trail.js';
import type { ConsoleContext, ConsoleDeps, ConsoleEnv } from '../context.js';
import { html } from '../html.js';
import { discordMarkup } from '../markup.js';
import { namesFor } from '../names.js';
import { placeNamed, placesOf } from '../places.js';
import { policyPage } from '../pages/policy.js';
import { frameOf, page } from './guard.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** A form's field as text ('' when absent or a file). */
const field = (body: Record<string, unknown>, name: string) => (typeof body[name] === 'string' ? (body[name] as string).trim() : '');

export function policyRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const actorOf = (c: ConsoleContext): Actor => ({ id: c.var.active.session.userId, name: c.var.actorName, via: 'console' });

  /** The page, with the answer to a change (or what was wrong with it) above it. */
  async function show(c: ConsoleContext, answer?: { text: string; problem: boolean }, status: 200 | 400 | 503 = 200) {
    const { guild } = c.var.access;
    const [settings, names, models] = await Promise.all([deps.rules.snapshot(guild.id), namesFor(deps.discord, guild), choosableModels(deps.rules.channelDefaults, deps.rules.serverModels).catch(() => [deps.rules.channelDefaults.model])]);
    const view = { settings, tools: deps.rules.tools, places: placesOf(guild.id, names.channels), roles: guild.roles, defaults: deps.rules.channelDefaults, models, names, guildId: guild.id };
    const notice = answer && html`<div class="notice${answer.problem ? ' problem' : ''}" role="status">${discordMarkup(answer.text, names)}</div>`;
    return page(c, policyPage(frameOf(c, 'Policy', 'policy'), view, c.var.csrf, notice), status);
  }

  /** Run a named write and answer with the page: its answer, or why it could not be saved. */
  async function save(c: ConsoleContext, write: () => Promise<string>) {
    try {
      return await show(c, { text: await write(), problem: false });
    } catch (error) {
      deps.logger.error({ err: error, guildId: c.var.access.guild.id }, 'console: could not save a change');
      return show(c, { text: saveFailed(error), problem: true }, 503);
    }
  }

  const problem = (c: ConsoleContext, text: string) => show(c, { text, problem: true }, 400);

  app.get('/g/:guildId/policy', (c) => show(c));

  app.post('/g/:guildId/policy/tool', async (c) => {
    const body = await c.req.parseBody();
    const { guild } = c.var.access;
    const chosen = chooseTool(deps.rules.tools.map((t) => t.name), field(body, 'tool'));
    if (!chosen.ok) return problem(c, chosen.problem);
    const place = placeNamed(placesOf(guild.id, await deps.discord.channels(guild.id)), field(body, 'scope'));
    if (!place) return problem(c, 'Choose where the rule applies: the whole server, one of its categories or one of its channels. Nothing was changed.');
    const roleId = field(body, 'role');
    if (roleId === guild.id) return problem(c, EVERYONE_ROLE_PROBLEM);
    if (roleId && !guild.roles.some((r) => r.id === roleId)) return problem(c, 'That role is not one of this server\'s. Nothing was changed.');
    const target: RuleTarget = { ...place.target, ...(roleId ? { roleId } : {}) };
    const mode = field(body, 'mode');
    const tool = chosen.name;
    if (mode === 'on' || mode === 'off') {
      // Enabling a tool from outside pins what the model and the policy read of it now, as `/tools enable` does.
      const found = deps.rules.tools.find((t) => t.name === tool);
      const pin = found?.fingerprint ? { fingerprint: found.fingerprint, listing: found.provenance?.listing } : undefined;
      return save(c, async () => toolModeAnswer(await deps.rules.setToolMode(guild.id, actorOf(c), { tool, allow: mode === 'on', target, pin }), tool, target));
    }
    if (mode === 'ask' || mode === 'auto') return save(c, async () => approvalAnswer(await deps.rules.setApproval(guild.id, actorOf(c), { tool, mode, target }), tool, mode, target));
    return problem(c, `Unknown mode \`${mode.slice(0, TEXT_CAPS.typedId)}\`: use on, off, ask or auto. Nothing was changed.`);
  });

  app.post('/g/:guildId/policy/setting', async (c) => {
    const body = await c.req.parseBody();
    const { guild } = c.var.access;
    const place = placeNamed(placesOf(guild.id, await deps.discord.channels(guild.id)), field(body, 'scope'));
    if (!place) return problem(c, 'Choose where the setting applies: the whole server, one of its categories or one of its channels. Nothing was changed.');
    const value = field(body, 'value');
    const at = place.target;
    switch (field(body, 'setting')) {
      case 'model': {
        const reset = value.toLowerCase() === 'default';
        if (!reset && !modelIsAllowed(value, deps.rules.channelDefaults)) return problem(c, modelProblem(value, await choosableModels(deps.rules.channelDefaults, deps.rules.serverModels)));
        return save(c, async () => settingAnswer('model', await deps.rules.setModel(guild.id, actorOf(c), { place: at, model: reset ? null : value })));
      }
      case 'persona': {
        const text = cleanText(typeof body.value === 'string' ? body.value : '').trim();
        const why = personaProblem(text);
        if (why) return problem(c, why);
        return save(c, async () => settingAnswer('persona', await deps.rules.setPersona(guild.id, actorOf(c), { place: at, text: text || null })));
      }
      case 'answers': {
        const why = answersProblem(value, deps.messageContent);
        if (why) return problem(c, why);
        return save(c, async () => settingAnswer('answers', await deps.rules.setAnswers(guild.id, actorOf(c), { place: at, mode: value === 'default' ? null : (value as AnswerMode) })));
      }
      case 'memory': {
        const why = memoryProblem(value, 'both');
        if (why) return problem(c, why);
        return save(c, async () => settingAnswer('memory', await deps.rules.setMemory(guild.id, actorOf(c), { place: at, kinds: [...MEMORY_KINDS], on: value === 'default' ? null : value === 'on' }), value === 'off' ? MEMORY_OFF_EFFECT : ''));
      }
      case 'display': {
        const why = displayProblem(value);
        if (why) return problem(c, why);
        return save(c, async () => settingAnswer('display', await deps.rules.setDisplay(guild.id, actorOf(c), { place: at, level: value === 'default' ? null : (value as DisplayLevel) })));
      }
      case 'schedules': {
        const why = scheduleAccessProblem(value);
        if (why) return problem(c, why);
        return save(c, async () => settingAnswer('schedules', await deps.rules.setScheduleAccess(guild.id, actorOf(c), value as ScheduleAccess)));
      }
      default:
        return problem(c, 'Choose which setting to change: model, persona, answers, memory, display or who may schedule questions. Nothing was changed.');
    }
  });
}
