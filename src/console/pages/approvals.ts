/**
 * The calls waiting for a person in a server: the tool, the call with its arguments (shown as the
 * bot shows them in Discord, one line of code: data, never markup), where and since when, and Approve or
 * Deny, which settle it once, like the buttons in Discord. A second decision gets the 409 page naming
 * who decided first and when.
 */
import { html, type Html } from '../html.js';
import { discordMarkup, utcTime, type MentionNames } from '../markup.js';
import type { WaitingCall } from '../approvals.js';
import { csrfField, layout, type Frame } from './layout.js';

export function approvalsPage(frame: Frame, guildId: string, calls: readonly WaitingCall[], canDecide: boolean, csrf: string, names: MentionNames, notice?: Html): Html {
  const decide = (call: WaitingCall) => canDecide
    ? html`<form class="inline" method="post" action="/g/${guildId}/approvals/decide">${csrfField(csrf)}<input type="hidden" name="turn" value="${call.turnId}"><input type="hidden" name="index" value="${call.index}"><input type="hidden" name="call" value="${call.described}">
<button type="submit" name="verdict" value="approve">Approve</button><button class="danger" type="submit" name="verdict" value="deny">Deny</button></form>`
    : html`<span class="muted">Decide it in Discord (this console runs apart from the bot).</span>`;
  const rows = calls.map((call) => html`<tr><td><code>${call.tool}</code></td><td>${discordMarkup(call.described, names)}${call.only ? html`<br><small>Only ${call.only.map((a) => a.name).join(' or ')} may decide.</small>` : ''}</td>
<td>${discordMarkup(`<#${call.channelId}>`, names)}</td><td><time>${utcTime(call.createdAt)}</time><br><small>until ${utcTime(call.expiresAt)}</small></td><td>${decide(call)}</td></tr>`);
  return layout(frame, html`<h1>Waiting approvals</h1>${notice ?? ''}
${calls.length === 0 ? html`<p class="muted">No call waits for a decision in this server.</p>` : html`<div class="scroll"><table><thead><tr><th>Tool</th><th>Call</th><th>Where</th><th>Since</th><th>Decision</th></tr></thead><tbody>${rows}</tbody></table></div>`}`);
}
