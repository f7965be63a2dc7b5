/** A server's scheduled questions: what, when, whose, paused or not, with Pause, Resume and Remove. */
import { questionPreview, whenText } from '../../discord/text/schedule-text.js';
import type { Schedule } from '../../state/index.js';
import { html, type Html } from '../html.js';
import { discordMarkup, utcTime, type MentionNames } from '../markup.js';
import { csrfField, layout, type Frame } from './layout.js';

export function schedulesPage(frame: Frame, guildId: string, schedules: readonly Schedule[], csrf: string, names: MentionNames, notice?: Html): Html {
  const act = (s: Schedule, action: 'pause' | 'resume' | 'remove', label: string, kind = '') =>
    html`<form class="inline" method="post" action="/g/${guildId}/schedules/${s.id}/${action}">${csrfField(csrf)}<button${kind ? html` class="${kind}"` : ''} type="submit">${label}</button></form>`;
  const rows = schedules.map((s) => html`<tr><td><code>${s.id}</code></td><td>${questionPreview(s.question, 160)}</td><td>${whenText(s)}</td>
<td>${discordMarkup(`<@${s.ownerId}> in <#${s.channelId}>`, names)}</td>
<td>${s.paused ? html`<span class="ask">paused</span><br><small>${s.paused.reason} (${utcTime(s.paused.at)})</small>` : html`<span class="on">active</span>`}</td>
<td>${s.paused ? act(s, 'resume', 'Resume') : act(s, 'pause', 'Pause', 'secondary')} ${act(s, 'remove', 'Remove', 'danger')}</td></tr>`);
  return layout(frame, html`<h1>Scheduled questions</h1>${notice ?? ''}
${schedules.length === 0 ? html`<p class="muted">No scheduled questions in this server. Members add them with <code>/schedule add</code>.</p>` : html`<div class="scroll"><table><thead><tr><th>Id</th><th>Question</th><th>When</th><th>Whose, where</th><th>State</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>`}`);
}
