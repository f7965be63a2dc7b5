/**
 * Voted answers as an evaluation suite (what `/feedback export` writes, so `npm run eval` can run the
 * questions members rated again, on any model): one case a voted answer, with the question as its
 * members wrote it, the thread's earlier messages, the place's persona and tools, and a check from the
 * votes: a `judge` rubric from the 👎 reasons when as many members or more rated it down as up, else
 * `contains` of the answer's key words (a `judge` of the liked answer when it has none). Everything else (the answer given, the rating, where it was) goes under
 * `meta`; no member ids anywhere. The suite is read back through the suite reader before it is given
 * out, so what is exported is a suite the runner takes.
 */
import { cutText } from '../agent/text-caps.js';
import { tally, type FeedbackRecord } from '../state/feedback/index.js';
import { oneLineEntry } from '../state/member-memory/index.js';
import type { ToolName } from '../../tools/index.js';
import { keyWords } from './key-words.js';
import { parseSuite } from './suite.js';

/**
 * Tools the bot has only in a server (they need its knowledge base, its past threads or its members'
 * memory, none of which the terminal opens): left out of an exported case's `tools`, which the runner
 * would refuse as unknown. The place's full list stays in `meta.place_tools`.
 */
const SERVER_ONLY_TOOLS: ReadonlySet<string> = new Set<ToolName>(['search_knowledge', 'search_threads', 'remember', 'forget']);

/** How much of the rejected answer a rubric quotes, and of the thread's history a case carries. */
const QUOTED_ANSWER_CHARS = 1_500;
const HISTORY_MESSAGES = 20;
const HISTORY_MESSAGE_CHARS = 4_000;
const TAG_CHARS = 100;
/** Reasons a rubric quotes, and its length (the suite's own cap on a `judge`). */
const QUOTED_REASONS = 6;
const RUBRIC_CHARS = 4_000;

/** One voted answer and what the export adds from the server: its channel's name, the thread before it, its link. */
export interface VotedAnswer {
  record: FeedbackRecord;
  channelName?: string;
  history?: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>;
  link?: string;
}

/** The suite's lines (JSONL), each checked by the suite reader; the records without text or votes are left out. */
export function feedbackSuite(answers: readonly VotedAnswer[]): { body: string; cases: number } {
  const lines = answers.filter(({ record }) => !record.removed && record.question.trim() && Object.keys(record.votes).length > 0).map((a) => JSON.stringify(feedbackCase(a)));
  const body = lines.length ? `${lines.join('\n')}\n` : '';
  // A line the runner would refuse is a bug here: found now, not by the moderator's `npm run eval`.
  if (lines.length) parseSuite(body, 'the export');
  return { body, cases: lines.length };
}

/** One voted answer as a case of the suite format (src/eval/suite.ts). */
export function feedbackCase({ record, channelName, history, link }: VotedAnswer): Record<string, unknown> {
  const { up, down } = tally(record);
  const reasons = Object.values(record.votes).flatMap((v) => (v.vote === 'down' && v.reason ? [oneLineEntry(v.reason, 300).text] : []));
  const turns = (history ?? []).slice(-HISTORY_MESSAGES).map((m) => ({ role: m.role, content: cutText(m.content, HISTORY_MESSAGE_CHARS) })).filter((m) => m.content.trim());
  const words = down >= up && down > 0 ? [] : keyWords(record.answer, [...turns.map((m) => m.content), record.question].join('\n'));
  const expect = words.length ? { contains: words } : { judge: rubric(record.answer, down >= up && down > 0 ? { down: reasons } : { up: true }) };
  const channel = tag(channelName?.replace(/^#/, '') || `channel-${record.channelId}`);
  return {
    id: `feedback-${record.id}`,
    question: record.question,
    expect,
    tags: [channel, tag(record.model)],
    ...(record.persona ? { persona: record.persona } : {}),
    tools: record.offered.filter((t) => !SERVER_ONLY_TOOLS.has(t)),
    ...(turns.length ? { history: turns } : {}),
    meta: {
      source: 'threadwise /feedback export',
      answer: record.answer,
      rating: { up, down },
      ...(reasons.length ? { reasons } : {}),
      guild_id: record.guildId,
      channel_id: record.channelId,
      ...(record.threadId ? { thread_id: record.threadId } : {}),
      ...(link ? { link } : {}),
      answered_at: new Date(record.at).toISOString(),
      model: record.model,
      place_tools: record.offered,
      tools_called: record.tools,
      steps: record.steps,
      tokens: record.tokens.total,
      latency_ms: record.latencyMs,
    },
  };
}

/**
 * The judge's rubric: members' reasons are quoted as their words (data, one line each), with the answer
 * they rejected, or the answer they liked when it has no key words to look for.
 */
function rubric(answer: string, votes: { down: string[] } | { up: true }): string {
  const given = `"${cutText(answer.replace(/\s+/g, ' ').trim(), QUOTED_ANSWER_CHARS)}"`;
  if ('up' in votes) return `Members rated an earlier answer to this question 👍. It was: ${given}. Pass if the answer gives the same facts and conclusion (it may be worded differently).`;
  const said = votes.down.length
    ? `, saying (their words, quoted): ${votes.down.slice(0, QUOTED_REASONS).map((r) => `"${r}"`).join('; ')}`
    : ' without saying why';
  return cutText(`Members rated an earlier answer to this question 👎${said}. That answer was: ${given}. Pass only if the answer is correct and helpful and does not have the problem they name.`, RUBRIC_CHARS);
}

function tag(text: string): string {
  return cutText(text.trim(), TAG_CHARS) || 'unknown';
}
