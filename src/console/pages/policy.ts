/**
 * The policy page: the tool table (each tool in each place, for a member without role rules: on, off,
 * waiting for approval, suspended), the rules that decide it (role rules included), each place's
 * settings (display, model, persona, where the bot answers, memory), and one form per change: a tool
 * (`tool`, `scope`, `role`, `mode`), a setting, who may schedule questions.
 */
import type { ToolDefinition } from '../../agent/tool.js';
import { answerMode, channelSettings, memorySettings, pinMismatch, resolveToolAccess, scheduleAccess, toolsNeedingApproval, type ChannelDefaults } from '../../policy/index.js';
import { describeRule, PRECEDENCE_NOTE, targetPhrase } from '../../discord/text/rule-text.js';
import { SCHEDULE_WORDS } from '../../discord/text/settings-text.js';
import type { GuildSettings } from '../../state/index.js';
import type { RoleInfo } from '../discord-reads.js';
import { html, type Html } from '../html.js';
import { discordMarkup, type MentionNames } from '../markup.js';
import type { Place } from '../places.js';
import { csrfField, layout, type Frame } from './layout.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** What the policy page shows. */
export interface PolicyView {
  settings: GuildSettings;
  tools: readonly ToolDefinition[];
  places: readonly Place[];
  roles: readonly RoleInfo[];
  defaults: ChannelDefaults;
  models: readonly string[];
  names: MentionNames;
  guildId: string;
}

const options = (items: ReadonlyArray<[string, string]>) => items.map(([value, label]) => html`<option value="${value}">${label}</option>`);

function toolTable(view: PolicyView): Html {
  const cells = view.places.map((place) => {
    const access = new Map(resolveToolAccess(view.settings, place.scope, view.tools).map((a) => [a.tool, a]));
    const asking = new Set(toolsNeedingApproval(view.settings, place.scope, view.tools));
    return { place, access, asking };
  });
  const rows = view.tools.map((tool) => {
    const suspended = pinMismatch(view.settings, tool);
    return html`<tr><th scope="row"><code>${tool.name}</code></th>${cells.map(({ access, asking }) => {
      const on = access.get(tool.name)?.enabled ?? false;
      const mode = !on ? html`<span class="off">off</span>` : suspended ? html`<span class="ask">suspended</span>` : asking.has(tool.name) ? html`<span class="ask">ask</span>` : html`<span class="on">on</span>`;
      return html`<td class="mode">${mode}</td>`;
    })}</tr>`;
  });
  return html`<div class="scroll"><table class="tools"><thead><tr><th>Tool</th>${view.places.map((p) => html`<th>${p.label}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>
<p class="muted">For a member without role rules. <b>ask</b>: calls wait for Approve; <b>suspended</b>: its MCP server changed it since it was enabled (see MCP tools). ${PRECEDENCE_NOTE}</p>`;
}

function rulesList(view: PolicyView): Html {
  const tools = view.settings.toolRules.map((r) => discordMarkup(describeRule(r), view.names));
  const approvals = (view.settings.approvalRules ?? []).map((r) => discordMarkup(`\`${r.tool}\` ${r.allow ? 'auto' : 'ask'} ${targetPhrase(r)}`, view.names));
  if (tools.length + approvals.length === 0) return html`<p class="muted">No rules yet: every tool follows its built-in default.</p>`;
  return html`<ul>${[...tools, ...approvals].map((line) => html`<li>${line}</li>`)}</ul>`;
}

function toolForm(view: PolicyView, csrf: string): Html {
  const roles = view.roles.filter((r) => r.id !== view.guildId).sort((a, b) => b.position - a.position);
  return html`<form class="inline" method="post" action="/g/${view.guildId}/policy/tool">${csrfField(csrf)}
<label>Tool<select name="tool">${options(view.tools.map((t) => [t.name, t.name]))}</select></label>
<label>Where<select name="scope">${options(view.places.map((p) => [p.value, p.label]))}</select></label>
<label>For members with<select name="role"><option value="">(everyone)</option>${options(roles.map((r) => [r.id, `@${r.name}`]))}</select></label>
<label>Mode<select name="mode"><option value="on">on</option><option value="off">off</option><option value="ask">ask (wait for approval)</option><option value="auto">auto (no approval)</option></select></label>
<button type="submit">Save</button></form>`;
}

function settingsTable(view: PolicyView): Html {
  const rows = view.places.map((place) => {
    const s = channelSettings(view.settings, place.scope, view.defaults);
    const memory = memorySettings(view.settings, place.scope);
    return html`<tr><th scope="row">${place.label}</th><td>${s.display}</td><td><code>${s.model}</code></td><td>${s.persona ? s.persona.slice(0, TEXT_CAPS.personaInTable) : html`<span class="muted">none</span>`}</td><td>${answerMode(view.settings, place.scope).mode}</td><td>${memory.members ? 'on' : 'off'} / ${memory.threads ? 'on' : 'off'}</td></tr>`;
  });
  return html`<div class="scroll"><table><thead><tr><th>Place</th><th>Display</th><th>Model</th><th>Persona</th><th>Answers</th><th>Memory (notes / past threads)</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function settingForm(view: PolicyView, csrf: string): Html {
  return html`<form class="inline" method="post" action="/g/${view.guildId}/policy/setting">${csrfField(csrf)}
<label>Setting<select name="setting"><option value="model">model</option><option value="persona">persona</option><option value="answers">answers (mention, always, off, default)</option><option value="memory">memory (on, off, default)</option><option value="display">display (full, actions, answer, default)</option></select></label>
<label>Where<select name="scope">${options(view.places.map((p) => [p.value, p.label]))}</select></label>
<label>Value<input name="value" list="models" placeholder="e.g. ${view.defaults.model}"></label><datalist id="models">${options(['default', ...view.models].map((m) => [m, m]))}</datalist>
<button type="submit">Save</button></form>
<form class="inline" method="post" action="/g/${view.guildId}/policy/setting">${csrfField(csrf)}<input type="hidden" name="setting" value="schedules"><input type="hidden" name="scope" value="guild">
<label>Who may schedule questions (now: ${SCHEDULE_WORDS[scheduleAccess(view.settings)]})<select name="value"><option value="moderators">moderators</option><option value="everyone">everyone</option><option value="off">off</option></select></label><button type="submit">Save</button></form>`;
}

/** The whole page, with the answer to a change above it. */
export function policyPage(frame: Frame, view: PolicyView, csrf: string, notice?: Html): Html {
  return layout(frame, html`<h1>Policy</h1>${notice ?? ''}
<div class="card"><h2>Change a tool</h2>${toolForm(view, csrf)}</div>
<div class="card"><h2>Tools in each place</h2>${toolTable(view)}<h2>Rules on this server</h2>${rulesList(view)}</div>
<div class="card"><h2>Settings in each place</h2>${settingsTable(view)}<h2>Change a setting</h2>${settingForm(view, csrf)}<p class="muted">A persona of nothing (an empty value) removes it; <code>default</code> goes back to the broader setting.</p></div>`);
}
