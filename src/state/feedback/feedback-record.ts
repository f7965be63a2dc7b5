/**
 * What is kept of an answered turn so that members can rate it: the question as its members wrote it,
 * the answer, what produced it (model, persona, the tools offered and called), what it cost (steps,
 * tokens, latency), where and when, and the votes. Versioned and read back through zod: a record this
 * version cannot read is skipped, never taken for a vote-less answer.
 */
import { z } from 'zod';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** The version records are written in. */
export const FEEDBACK_VERSION = 1;


const VoteSchema = z.object({
  vote: z.enum(['up', 'down']),
  /** A 👎's reason, cleaned and at most TEXT_CAPS.feedbackReason. */
  reason: z.string().max(TEXT_CAPS.feedbackReason).optional(),
  at: z.number(),
});

export const FeedbackRecordSchema = z.object({
  v: z.literal(FEEDBACK_VERSION),
  /** The turn's id (what the vote buttons' custom ids carry). */
  id: z.string(),
  guildId: z.string(),
  /** The channel whose rules applied (a thread's parent). */
  channelId: z.string(),
  threadId: z.string().optional(),
  /** A message of the answer (the one its first vote was pressed on): where a summary links to. */
  messageId: z.string().optional(),
  /** When the answer was posted (kept just before), and when the question was taken (the thread's history is what came before). */
  at: z.number(),
  askedAt: z.number(),
  question: z.string(),
  /** The Discord messages the question came in (none for a slash command): deleting one removes the text. */
  questionIds: z.array(z.string()),
  answer: z.string(),
  /** Set once the text was removed (`/reset` of the thread, a question deleted): counts stay, words go. */
  removed: z.enum(['reset', 'deleted']).optional(),
  model: z.string(),
  persona: z.string().optional(),
  /** Tools the run was offered (the place's), and those it called, by name only. */
  offered: z.array(z.string()),
  tools: z.array(z.string()),
  steps: z.number().int().min(0),
  tokens: z.object({ prompt: z.number(), completion: z.number(), total: z.number() }),
  latencyMs: z.number(),
  /** One vote per member, by member id: a new press replaces it. */
  votes: z.record(z.string(), VoteSchema),
});

export type FeedbackRecord = z.infer<typeof FeedbackRecordSchema>;
export type Vote = z.infer<typeof VoteSchema>;
/** What the turn hands over when its answer is posted. */
export type AnsweredTurn = Omit<FeedbackRecord, 'v' | 'votes' | 'removed'>;

/** A record read back: readable, or why not (reported, skipped). */
export type DecodedRecord = { ok: true; record: FeedbackRecord } | { ok: false; reason: string };

export function encodeRecord(record: FeedbackRecord): string {
  return JSON.stringify(FeedbackRecordSchema.parse(record));
}

export function decodeRecord(raw: string): DecodedRecord {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = FeedbackRecordSchema.safeParse(value);
  if (parsed.success) return { ok: true, record: parsed.data };
  const version = (value as { v?: unknown } | null)?.v;
  return { ok: false, reason: typeof version === 'number' && version > FEEDBACK_VERSION ? `written by a newer version (${version})` : `wrong shape (${parsed.error.issues[0]?.message ?? 'invalid'})` };
}

/** The record with its words gone (question, answer, reasons): what `/reset` and a deleted question leave. */
export function withoutText(record: FeedbackRecord, why: 'reset' | 'deleted'): FeedbackRecord {
  const votes = Object.fromEntries(Object.entries(record.votes).map(([user, { vote, at }]) => [user, { vote, at }]));
  return { ...record, question: '', answer: '', removed: why, votes };
}

/** The 👍 and 👎 of a record. */
export function tally(record: Pick<FeedbackRecord, 'votes'>): { up: number; down: number } {
  const votes = Object.values(record.votes);
  return { up: votes.filter((v) => v.vote === 'up').length, down: votes.filter((v) => v.vote === 'down').length };
}
