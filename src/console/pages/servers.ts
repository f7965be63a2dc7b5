/** The first page: a sign-in button, or the servers the member may manage now. */
import { html, type Html } from '../html.js';
import { layout, type Frame } from './layout.js';

/** Not signed in: what the console is and the one way in. */
export function signInPage(): Html {
  return layout({ title: 'Sign in' }, html`<h1>Moderator console</h1>
<div class="card"><p>See and change how the bot works in your servers: which tools run where, what it did, who used it, and the calls waiting for approval.</p>
<p>Sign in with your Discord account. The console asks Discord only who you are and which servers you are in, and shows a server only where you have the Manage Server permission now.</p>
<p><a class="button" href="/auth/login">Sign in with Discord</a></p></div>`);
}

/** Signed in: the servers the bot is in where the member has Manage Server now. */
export function serversPage(frame: Frame, servers: ReadonlyArray<{ id: string; name: string }>): Html {
  const list = servers.length
    ? html`<ul class="servers">${servers.map((s) => html`<li><a href="/g/${s.id}">${s.name}</a></li>`)}</ul>`
    : html`<div class="notice">None of your servers can be managed here: the bot must be in the server, and you need the Manage Server permission there. If you joined a server or got the permission after signing in, sign out and in again.</div>`;
  return layout(frame, html`<h1>Your servers</h1>${list}`);
}
