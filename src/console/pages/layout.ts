/**
 * The frame of every console page: the header (who is signed in, sign out), the server's sections when a
 * server is open, and the page's body. Plain HTML with one style sheet and no script, so it works without
 * JavaScript and under a Content-Security-Policy that allows none; it reads on a phone too.
 */
import { html, type Html } from '../html.js';

/** The sections of a server's pages, in the order of its menu. */
export const SECTIONS = [
  ['overview', 'Overview', ''],
  ['policy', 'Policy', '/policy'],
  ['audit', 'Audit log', '/audit'],
  ['approvals', 'Approvals', '/approvals'],
  ['schedules', 'Schedules', '/schedules'],
  ['tools', 'MCP tools', '/tools'],
] as const;

export type Section = (typeof SECTIONS)[number][0];

/** What the frame shows around a page's body. */
export interface Frame {
  title: string;
  /** Signed in: their name and the CSRF token the sign-out form carries. */
  user?: { name: string; csrf: string };
  /** The server open, and which of its sections. */
  guild?: { id: string; name: string; section: Section };
}

/** The sign-out form (a POST with the CSRF token, never a link a page elsewhere could load). */
function signOut(csrf: string): Html {
  return html`<form method="post" action="/auth/logout"><input type="hidden" name="csrf" value="${csrf}"><button class="secondary" type="submit">Sign out</button></form>`;
}

/** A page: the frame around `body`. */
export function layout(frame: Frame, body: Html): Html {
  const { guild, user } = frame;
  const nav = guild
    ? html`<nav class="sections" aria-label="Server">${SECTIONS.map(([key, label, path]) => html`<a href="/g/${guild.id}${path}"${key === guild.section ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>`
    : '';
  return html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · threadwise console</title><link rel="stylesheet" href="/static/console.css"></head>
<body><header class="top"><a class="brand" href="/">threadwise console</a>${guild ? html`<span>${guild.name}</span>` : ''}
${user ? html`<div class="who"><span>${user.name}</span>${signOut(user.csrf)}</div>` : ''}</header>
${nav}<main>${body}</main></body></html>`;
}

/** A hidden CSRF field, for every form. */
export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;
