/**
 * A server's overview: runs and tokens today and over 30 days (a chart of each day and the table of its
 * numbers), the busiest channels and members over the 30 days, and what waits for a decision.
 */
import type { GuildHistory } from '../../state/index.js';
import { html, type Html } from '../html.js';
import { barChart } from './chart.js';
import { layout, type Frame } from './layout.js';
import type { MentionNames } from '../markup.js';

const n = (value: number) => value.toLocaleString('en-US');

function busiest(title: string, rows: ReadonlyArray<{ name: string; runs: number; tokens: number }>): Html {
  return html`<div class="card"><h2>${title}</h2>${rows.length === 0 ? html`<p class="muted">Nobody used the bot here in the last 30 days.</p>` : html`<div class="scroll"><table><thead><tr><th>Who</th><th>Runs</th><th>Tokens</th></tr></thead><tbody>${rows.map((r) => html`<tr><td>${r.name}</td><td>${n(r.runs)}</td><td>${n(r.tokens)}</td></tr>`)}</tbody></table></div>`}</div>`;
}

/** The overview of a server's last 30 days. */
export function overviewPage(frame: Frame, history: GuildHistory, names: MentionNames, waiting: number): Html {
  const today = history.days.at(-1)?.totals;
  const sum = (pick: (d: GuildHistory['days'][number]) => number) => history.days.reduce((all, d) => all + pick(d), 0);
  const stats: Array<[string, number]> = [
    ['runs today', today?.runs ?? 0],
    ['tokens today', today?.totalTokens ?? 0],
    ['runs in 30 days', sum((d) => d.totals.runs)],
    ['tokens in 30 days', sum((d) => d.totals.totalTokens)],
  ];
  const day = (d: string) => d.slice(5);
  return layout(frame, html`<h1>Overview</h1>
<div class="grid">${stats.map(([label, value]) => html`<div class="stat"><b>${n(value)}</b><span>${label}</span></div>`)}
<div class="stat"><b><a href="/g/${frame.guild?.id ?? ""}/approvals">${n(waiting)}</a></b><span>calls waiting for approval</span></div></div>
<div class="card"><h2>Tokens per day (UTC)</h2>${barChart('Tokens per day over the last 30 days', history.days.map((d) => ({ label: d.day, value: d.totals.totalTokens })))}
<h2>Runs per day (UTC)</h2>${barChart('Runs per day over the last 30 days', history.days.map((d) => ({ label: d.day, value: d.totals.runs })))}
<details><summary>The numbers of each day</summary><div class="scroll"><table><thead><tr><th>Day</th><th>Runs</th><th>Tokens</th></tr></thead><tbody>${[...history.days].reverse().map((d) => html`<tr><td>${day(d.day)}</td><td>${n(d.totals.runs)}</td><td>${n(d.totals.totalTokens)}</td></tr>`)}</tbody></table></div></details></div>
${busiest('Busiest channels (30 days)', history.topChannels.map((c) => ({ name: `#${names.channel(c.channelId) ?? c.channelId}`, runs: c.totals.runs, tokens: c.totals.totalTokens })))}
${busiest('Busiest members (30 days)', history.topMembers.map((m) => ({ name: names.member(m.userId) ?? m.userId, runs: m.totals.runs, tokens: m.totals.totalTokens })))}`);
}
