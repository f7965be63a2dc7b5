/**
 * Fit a conversation into a token budget without breaking it. In order, and only as far as needed:
 * long tool observations of older turns are shortened (oldest first), then the oldest whole turns are
 * dropped, and if the newest turn alone is still too big its observations are shortened further.
 * System messages at the start and the newest turn are always kept, and a turn always starts at a user
 * message, so an assistant's tool calls never lose their results. Cost is linear in the history: each
 * message is tokenized once (then cached) and only kept turns are ever shortened.
 */
import type { ChatMessage } from '../../agent/types.js';
import { repairSequence, splitTurns } from './message-sequence.js';
import { encodingForModel, MESSAGE_OVERHEAD, REPLY_PRIMING, TokenCounter } from './token-counter.js';

/** How to trim: the budget, the reply's room, and the model that picks the tokenizer. */
export interface TrimOptions {
  /** Tokens the history may take, the reply's room included (HISTORY_TOKEN_BUDGET). */
  budget: number;
  /** Tokens kept free for the model's reply. Default 0. */
  reserveForReply?: number;
  /** The model name; it picks the tokenizer when no `counter` is given. */
  model?: string;
  /** Old observations longer than this many tokens are cut to it before turns are dropped. Default 300. */
  observationTokens?: number;
  /** Counter to use (and whose cache to warm); default: a fresh one for `model`, used for this call only. */
  counter?: TokenCounter;
}

/** The trimmed history and what trimming did to it, so the thread can say so. */
export interface TrimResult<T extends ChatMessage> {
  messages: T[];
  /** Messages of the input that are not in the output (dropped turns and repairs). */
  droppedMessages: number;
  droppedTurns: number;
  /** Input tokens minus output tokens: what dropping and shortening saved. */
  droppedTokens: number;
  /** Messages kept with shortened content. */
  shortened: number;
  /** Tokens of the output, reply priming included. */
  totalTokens: number;
  /** True when even the system messages and the newest turn, shortened, exceed the budget. */
  overBudget: boolean;
  /** Messages dropped or changed because the input broke the tool-call rules. */
  repaired: number;
}

// Upper bound of the "[… shortened: …]" note in tokens, so the plan can be made before shortening.
const NOTE_TOKENS = 24;
const SMALLEST_OBSERVATION = 32;

/** Trim `input` to `budget - reserveForReply` tokens. Never mutates the input or its messages. */
export function trimHistory<T extends ChatMessage>(input: readonly T[], options: TrimOptions): TrimResult<T> {
  const counter = options.counter ?? new TokenCounter(encodingForModel(options.model ?? ''));
  const available = options.budget - (options.reserveForReply ?? 0);
  const cap = Math.max(SMALLEST_OBSERVATION, options.observationTokens ?? 300);
  const count = (m: T) => counter.message(m);
  const sum = (ms: readonly T[]) => ms.reduce((n, m) => n + count(m), 0);
  const inputTokens = REPLY_PRIMING + sum(input);
  const { messages, repaired } = repairSequence(input);

  const finish = (out: T[], totalTokens: number, droppedTurns: number, shortened: number): TrimResult<T> => ({
    messages: out,
    droppedMessages: input.length - out.length,
    droppedTurns,
    droppedTokens: inputTokens - totalTokens,
    shortened,
    totalTokens,
    overBudget: totalTokens > available,
    repaired,
  });

  const whole = repaired ? REPLY_PRIMING + sum(messages) : inputTokens;
  if (whole <= available) return finish(messages, whole, 0, 0);

  const { pinned, turns } = splitTurns(messages);
  const newest = [...(turns.pop() ?? [])];
  let current = REPLY_PRIMING + sum(pinned) + sum(newest);
  const shortBound = (limit: number) => MESSAGE_OVERHEAD + limit + NOTE_TOKENS;
  const isLong = (m: T, limit: number) => m.role === 'tool' && count(m) > shortBound(limit);
  const shortenedCopies = new Set<T>();
  // Always cut from the original text, so a second, harder cut does not stack notes.
  const shorten = (turn: T[], i: number, original: T, limit: number) => {
    const after = { ...original, content: counter.shorten(original.content as string, limit) } as T;
    current += count(after) - count(turn[i]!);
    turn[i] = after;
    shortenedCopies.add(after);
  };

  // Keep the longest run of recent turns that fits once its long observations are shortened.
  let first = turns.length;
  let room = available - current;
  while (first > 0) {
    const size = turns[first - 1]!.reduce((n, m) => n + (isLong(m, cap) ? shortBound(cap) : count(m)), 0);
    if (size > room) break;
    room -= size;
    first--;
  }
  const kept = turns.slice(first).map((turn) => [...turn]);
  let droppedTurns = first;
  current += kept.reduce((n, turn) => n + sum(turn), 0);

  // Shorten only as much as needed, oldest observations first.
  for (const turn of kept) {
    for (let i = 0; i < turn.length && current > available; i++) if (isLong(turn[i]!, cap)) shorten(turn, i, turn[i]!, cap);
  }
  // The plan used upper bounds; exact counts can still differ by a token or two after re-encoding.
  while (current > available && kept.length > 0) {
    current -= sum(kept.shift()!);
    droppedTurns++;
  }
  // Last resort: the newest turn alone is too big; cut its observations, then cut them harder.
  const original = [...newest];
  for (const limit of [cap, Math.max(SMALLEST_OBSERVATION, Math.floor(cap / 4))]) {
    for (let i = 0; i < newest.length && current > available; i++) {
      if (isLong(original[i]!, limit) && count(newest[i]!) > shortBound(limit)) shorten(newest, i, original[i]!, limit);
    }
  }
  const out = [...pinned, ...kept.flat(), ...newest];
  return finish(out, current, droppedTurns, out.filter((m) => shortenedCopies.has(m)).length);
}
