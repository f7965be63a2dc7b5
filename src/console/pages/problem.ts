/**
 * The pages that refuse or explain: not signed in, no right to a server (403), a form without its CSRF
 * token (403), a decision already made (409), too many sign-ins (429), a page that does not exist (404),
 * Discord or the storage not answering (503). Each says what went wrong and what to do next.
 */
import { html, type Html } from '../html.js';
import { layout, type Frame } from './layout.js';

/** A refusal or a problem, in the frame of the page it happened on. */
export function problemPage(frame: Frame, heading: string, message: Html | string, next?: Html): Html {
  return layout(frame, html`<h1>${heading}</h1><div class="notice problem">${message}</div>${next ?? html`<p><a href="/">Back to your servers</a></p>`}`);
}
