/**
 * What `/memory` shows: a member's notes as a private list with their ids (as long as fits one message),
 * and the export file (their notes, and their 👍 and 👎 on answers). Notes are untrusted text, escaped
 * so they cannot format or ping.
 */
import { escapeDisplayName } from '../src/agent/clean-text.js';
import type { MemorySettings } from '../src/policy/index.js';
import { type MemberVote, type MemoryEntry, type MemoryLimits } from '../src/state/index.js';
import { cutText, TEXT_CAPS } from '../src/agent/text-caps.js';

const LIMIT = 1_900;

/** `#id text…` in a few words, for autocomplete and lists. */
export function entryLabel(entry: MemoryEntry, chars: number = TEXT_CAPS.noteLabel): string {
  const text = [...entry.text].length > chars ? `${[...entry.text].slice(0, chars - 1).join('')}…` : entry.text;
  return `#${entry.id} ${text}`;
}

/** The `/memory show` reply. */
export function notesList(entries: readonly MemoryEntry[], limits: MemoryLimits, memory: Pick<MemorySettings, 'members'>): string {
  const off = memory.members ? '' : '\n-# Member memory is off in this channel: I do not use your notes here (moderators decide with `/settings memory`).';
  if (entries.length === 0) return `You have no notes in this server. Ask me to remember something ("remember that I deploy on Fly.io") and it shows up here.${off}`;
  const head = `**Your notes in this server** (${entries.length} of ${limits.maxEntries}, newest first)`;
  const foot = '-# Used only in answers to you; in a thread answering several people, only notes marked 🔓 shared. `/memory forget`, `/memory clear`, `/memory share`, `/memory export`.' + off;
  const lines: string[] = [];
  let used = head.length + foot.length + 60;
  const newest = [...entries].reverse();
  for (const [i, entry] of newest.entries()) {
    const line = `• \`#${entry.id}\` ${entry.shared ? '🔓 ' : ''}${escapeDisplayName(entry.text, TEXT_CAPS.memoryNote)} · ${new Date(entry.at).toISOString().slice(0, 10)}${entry.how === 'approved' ? ', approved by you' : ''}`;
    if (used + line.length + 1 > LIMIT) {
      lines.push(`…and ${newest.length - i} older: \`/memory export\` has them all.`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return [head, ...lines, foot].join('\n');
}

/** The export file's content: the member's notes and their votes on answers, as data. */
export function notesExport(entries: readonly MemoryEntry[], where: { guildId: string; memberId: string; memberName: string; now: Date }, votes: readonly MemberVote[] = []): string {
  return `${JSON.stringify({
    format: 'threadwise-memory/1',
    guildId: where.guildId,
    member: { id: where.memberId, name: where.memberName },
    exportedAt: where.now.toISOString(),
    entries: entries.map((e) => ({ id: e.id, text: e.text, shared: e.shared, storedAt: new Date(e.at).toISOString(), how: e.how })),
    // Their own votes only: what they pressed, when, on which answer (no one else's).
    votes: votes.map(({ record, vote }) => ({
      answer: record.id,
      vote: vote.vote,
      ...(vote.reason ? { reason: vote.reason } : {}),
      votedAt: new Date(vote.at).toISOString(),
      answeredAt: new Date(record.at).toISOString(),
      channelId: record.channelId,
      ...(record.threadId ? { threadId: record.threadId } : {}),
      ...(record.removed ? { removed: record.removed } : { question: cutText(record.question, TEXT_CAPS.exportedQuestion) }),
    })),
  }, null, 2)}\n`;
}
