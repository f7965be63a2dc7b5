/**
 * What `/feedback summary` shows moderators: how many answers, how many were rated and how, the 👍 rate
 * per model, persona, channel and tool, and the worst-rated questions with links to their answers.
 * Counts only: who voted is never shown. Questions and personas are untrusted text, shown escaped on one
 * line. Pure; the reply fits one message.
 */
import { escapeInline } from '../../agent/clean-text.js';
import { tally, type FeedbackRecord } from '../../state/index.js';
import { fitMessage } from '../posting/split-message.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** Rows shown per section (the busiest first), and questions in the worst-rated list. */
const ROWS = 5;
const WORST = 5;

interface Counts {
  answers: number;
  up: number;
  down: number;
}

export interface SummaryScope {
  guildId: string;
  days: number;
  /** Only the answers asked in this channel (or thread). */
  channelId?: string;
  /** More answers than were read (the newest were counted). */
  more?: boolean;
  limit: number;
}

/** Where an answer is: its first message in its thread (or channel). */
export function answerLink(record: Pick<FeedbackRecord, 'guildId' | 'channelId' | 'threadId' | 'messageId'>): string {
  const channel = record.threadId ?? record.channelId;
  return `https://discord.com/channels/${record.guildId}/${channel}${record.messageId ? `/${record.messageId}` : ''}`;
}

/** The `/feedback summary` reply over the records read. */
export function feedbackSummary(records: readonly FeedbackRecord[], scope: SummaryScope): string {
  const where = scope.channelId ? ` in <#${scope.channelId}>` : '';
  const head = `**Feedback, the last ${scope.days} day${scope.days === 1 ? '' : 's'}**${where}`;
  if (records.length === 0) return `${head}\nNo answers yet. Every answer I post in this server has 👍 and 👎 under it; what members press shows here.`;
  const all = sum(records);
  const rated = records.filter((r) => Object.keys(r.votes).length > 0).length;
  const lines = [
    head,
    `${n(all.answers)} answer${all.answers === 1 ? '' : 's'}, ${n(rated)} rated: ${votes(all)}${scope.more ? ` (the newest ${n(scope.limit)} counted)` : ''}`,
    section('By model', group(records, (r) => [`\`${r.model.replace(/`/g, "'")}\``])),
    section('By persona', group(records, (r) => [r.persona ? `"${escapeInline(r.persona, TEXT_CAPS.summaryPersona)}"` : 'no persona'])),
    ...(scope.channelId ? [] : [section('By channel', group(records, (r) => [`<#${r.channelId}>`]))]),
    section('By tool called', group(records, (r) => (r.tools.length ? [...new Set(r.tools)].map((t) => `\`${t}\``) : ['no tool']))),
    worst(records),
    '-# Counts only: who voted is never shown. `/feedback export` gives the rated answers as an evaluation suite for `npm run eval`.',
  ];
  return fitMessage(lines.filter(Boolean).join('\n'));
}

function section(title: string, rows: Map<string, Counts>): string {
  const sorted = [...rows.entries()].sort((a, b) => b[1].answers - a[1].answers || a[0].localeCompare(b[0]));
  const shown = sorted.slice(0, ROWS).map(([label, c]) => `- ${label}: ${n(c.answers)} answer${c.answers === 1 ? '' : 's'}, ${votes(c)}`);
  if (sorted.length > ROWS) shown.push(`- …and ${sorted.length - ROWS} more`);
  return `**${title}**\n${shown.join('\n')}`;
}

/** The answers rated down the most (more 👎 than 👍 first), newest first among equals. */
function worst(records: readonly FeedbackRecord[]): string {
  const down = records.map((r) => ({ r, ...tally(r) })).filter((x) => x.down > 0);
  if (down.length === 0) return '';
  down.sort((a, b) => b.down - b.up - (a.down - a.up) || b.down - a.down || b.r.at - a.r.at);
  const rows = down.slice(0, WORST).map(({ r, up, down: d }, i) => {
    const question = r.removed ? `*(text removed: ${r.removed === 'reset' ? 'the thread was reset' : 'the question was deleted'})*` : escapeInline(r.question, TEXT_CAPS.summaryQuestion);
    return `${i + 1}. 👎 ${d} · 👍 ${up}: ${question} · <${answerLink(r)}>`;
  });
  return `**Worst rated**\n${rows.join('\n')}`;
}

function group(records: readonly FeedbackRecord[], keys: (r: FeedbackRecord) => string[]): Map<string, Counts> {
  const rows = new Map<string, Counts>();
  for (const record of records) {
    const { up, down } = tally(record);
    for (const key of keys(record)) {
      const c = rows.get(key) ?? { answers: 0, up: 0, down: 0 };
      rows.set(key, { answers: c.answers + 1, up: c.up + up, down: c.down + down });
    }
  }
  return rows;
}

function sum(records: readonly FeedbackRecord[]): Counts {
  return [...group(records, () => ['all']).values()][0]!;
}

/** `7 votes (👍 5, 👎 2): 👍 71%`, or `no votes`. */
function votes({ up, down }: Counts): string {
  const total = up + down;
  if (total === 0) return 'no votes';
  return `${n(total)} vote${total === 1 ? '' : 's'} (👍 ${n(up)}, 👎 ${n(down)}): 👍 ${Math.round((up / total) * 100)}%`;
}

const n = (value: number) => value.toLocaleString('en-US');
