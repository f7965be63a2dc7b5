/**
 * Discord's markup (what the bot's sentences and the audit lines are written in) as HTML for the console:
 * the text is escaped first, then only a few known forms become markup again: `inline code`, **bold**,
 * channel, member and role mentions (named from the server as the bot sees it, those names escaped
 * too) and `<t:…>` times. Anything else, a masked link `[text](url)` or a `<script>` a member typed into
 * a tool's argument, stays visible text.
 */
import { escapeHtml, Html } from './html.js';

/** The names mentions are shown with (ids not found are shown as ids). */
export interface MentionNames {
  channel(id: string): string | undefined;
  member(id: string): string | undefined;
  role(id: string): string | undefined;
}

export const NO_MENTION_NAMES: MentionNames = { channel: () => undefined, member: () => undefined, role: () => undefined };

/** A UTC time as the console shows it everywhere: `2026-03-04 09:05 UTC`. */
export function utcTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Escaped text (outside code spans) with its mentions, times and bold made markup. */
function inline(escaped: string, names: MentionNames): string {
  const named = (kind: string, shown: string | undefined, id: string, mark: string) =>
    `<span class="mention ${kind}">${mark}${shown === undefined ? id : escapeHtml(shown)}</span>`;
  return escaped
    .replace(/&lt;#(\d{1,20})&gt;/g, (_m, id: string) => named('channel', names.channel(id), id, '#'))
    .replace(/&lt;@&amp;(\d{1,20})&gt;/g, (_m, id: string) => named('role', names.role(id), id, '@'))
    .replace(/&lt;@!?(\d{1,20})&gt;/g, (_m, id: string) => named('member', names.member(id), id, '@'))
    .replace(/&lt;t:(\d{1,12})(?::[a-zA-Z])?&gt;/g, (_m, s: string) => `<time>${utcTime(Number(s) * 1000)}</time>`)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/^-# (.*)$/gm, '<small>$1</small>');
}

/** Discord-markup text as HTML (lines kept as line breaks). */
export function discordMarkup(text: string, names: MentionNames = NO_MENTION_NAMES): Html {
  // Split on backticks: every other piece is inside a code span, shown exactly as written.
  const pieces = text.split('`');
  const out = pieces.map((piece, i) => {
    const escaped = escapeHtml(piece);
    if (i % 2 === 1 && i < pieces.length - 1) return `<code>${escaped}</code>`;
    return inline(i % 2 === 1 ? `&#96;${escaped}` : escaped, names);
  });
  return new Html(out.join('').replace(/\n/g, '<br>'));
}
