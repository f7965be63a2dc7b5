/**
 * The tools from MCP servers: where each comes from, what its server says of it (as the model reads it:
 * escaped, it came from outside), and for one suspended because its server changed it since it was
 * enabled, what changed (the summary and the line diff) with a button to accept it as it is now.
 */
import type { ToolDefinition } from '../../agent/tool.js';
import { changeSummary, lineDiff, listingText } from '../../discord/text/listing-text.js';
import { pinMismatch, pinnedListing } from '../../policy/index.js';
import type { GuildSettings } from '../../state/index.js';
import type { ToolListing } from '../../agent/tool.js';
import { html, type Html } from '../html.js';
import { discordMarkup } from '../markup.js';
import { csrfField, layout, type Frame } from './layout.js';

export function toolsPage(frame: Frame, guildId: string, tools: readonly ToolDefinition[], settings: GuildSettings, csrf: string, notice?: Html): Html {
  const outside = tools.filter((t) => t.provenance);
  const cards = outside.map((t) => {
    const listing = t.provenance!.listing;
    const pinned = pinnedListing(settings, t.name) as ToolListing | undefined;
    const changed = pinMismatch(settings, t) && settings.toolPins?.[t.name] !== undefined;
    const state = settings.toolPins?.[t.name] === undefined ? html`<span class="muted">never enabled here</span>` : changed ? html`<span class="ask">suspended: changed since it was enabled</span>` : html`<span class="on">pinned as enabled</span>`;
    const diff = changed && listing && pinned ? html`<h3>What changed</h3><p>${discordMarkup(changeSummary(pinned, listing))}</p><pre class="diff">${lineDiff(listingText(pinned), listingText(listing))}</pre>` : changed && listing ? html`<p>${discordMarkup(changeSummary(undefined, listing))}</p>` : '';
    const accept = changed && t.fingerprint ? html`<form method="post" action="/g/${guildId}/tools/pin">${csrfField(csrf)}<input type="hidden" name="tool" value="${t.name}"><button type="submit">Accept it as it is now</button></form>` : '';
    return html`<div class="card"><h2><code>${t.name}</code></h2><p>${t.provenance!.source} · ${t.provenance!.notes.join(', ')} · ${state}</p>
<p class="muted">The model reads:</p><pre class="diff">${t.description}</pre>${diff}${accept}</div>`;
  });
  return layout(frame, html`<h1>Tools from MCP servers</h1>${notice ?? ''}
${outside.length === 0 ? html`<p class="muted">No MCP servers are configured (MCP_SERVERS_FILE), so the bot has only its own tools.</p>` : cards}
<p class="muted">Tools from MCP servers are off until a moderator enables them (Policy). Enabling pins what they say of themselves; a change suspends them until accepted here or enabled again.</p>`);
}
