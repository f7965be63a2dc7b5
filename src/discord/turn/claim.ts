/**
 * A turn's claim on the usage limits, from its admission to its last model call.
 *
 * Admitted (`decide`, for text `checkInput` passed): the member's and the server's limits must have room,
 * and a claim is taken in the shared usage store (a concurrency slot and a token reservation), which
 * comes back as the run's usage ticket; a refusal comes back as the sentence to show the person.
 *
 * Spent (`runBudget`, the ticket as the engine's call budget): before each model call, one shared read of
 * what is left of the member's and the server's daily tokens (other runs, in this process or another,
 * spend them too); after each call, its tokens recorded at once. A server that reports no usage (0, or
 * none at all: some local servers) is counted with the local tokenizer instead, so it is capped as well.
 * A turn answering several members (a busy team thread) is charged to each of them fairly: each pays
 * their messages' share of the input and an equal share of the output, against their own daily tokens.
 */
import type { CallBudget } from '../../agent/run-plan.js';
import type { ChatMessage, ModelReply, ToolSchema, Usage } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import type { RunScope } from '../../policy/index.js';
import { budgetRefusedNote, refusalText } from '../text/usage-text.js';
import { REPLY_PRIMING, type AdmitOptions, type EffectiveLimits, type LimitName, type Refusal, type TokenCounter, type UsageLimiter, type UsageTicket } from '../../state/index.js';
import type { InputRules, TurnRecord } from './record.js';

/** What admission checks against: the question's rules, and the usage limiter holding the shared counters. */
export interface AdmissionRules extends InputRules {
  limiter: UsageLimiter;
  logger: Logger;
}

/** The refusal when the shared counters cannot be read: closed, not open (nothing may spend the owner's account unchecked). */
export const LIMITS_UNCHECKED = 'I cannot check usage limits right now (my storage is not answering), so I did not start anything. Try again in a moment.';

/** Admitted (the usage ticket), or refused with the sentence to show and, for a usage limit, which. */
export type Decision = { ok: true; ticket: UsageTicket } | { ok: false; message: string; limit?: LimitName };

/**
 * The usage limits, for input already checked (`checkInput`, whose text type says so). `limits` is the
 * member's limits where they ask (the rules object's `at(scope).limits`, so the turn's one read of the
 * guild's settings serves it); it throws when they cannot be read, and the request is refused.
 */
export async function decide(rules: AdmissionRules, scope: RunScope, limits: () => Promise<EffectiveLimits>, options?: AdmitOptions): Promise<Decision> {
  let admission;
  try {
    admission = await rules.limiter.admit({ guildId: scope.guildId, channelId: scope.channelId, userId: scope.userId }, await limits(), options);
  } catch (error) {
    // Closed, not open: without the counters nothing would stop one member spending the owner's account.
    rules.logger.error({ err: error, guildId: scope.guildId, userId: scope.userId }, 'could not check usage limits; the request was refused');
    return { ok: false, message: LIMITS_UNCHECKED };
  }
  if (!admission.ok) return { ok: false, message: refusalText(admission), limit: admission.limit };
  return { ok: true, ticket: admission.ticket };
}

/** Give claims back (each at most once: a ticket ignores a second release); one that fails frees itself when its lease ends. */
export async function giveBack(logger: Pick<Logger, 'warn'>, ...tickets: UsageTicket[]): Promise<void> {
  await Promise.all(tickets.map((ticket) => ticket.release().catch((error) => logger.warn({ err: error, ticket: ticket.id }, 'could not release a usage slot; it frees itself when its lease ends'))));
}

/** The budget of one run, and the refusal that ended it, if one did. */
export interface RunBudget extends CallBudget {
  readonly refusal?: Refusal;
}

export interface RunBudgetOptions {
  /** The payer's ticket: checked before each call. */
  ticket: UsageTicket;
  /** The tickets of the other members the turn answers, who pay their share. */
  riders?: ReadonlyArray<{ userId: string; ticket: UsageTicket }>;
  /** The turn's messages (whose text weighs each member's share of the input) and its payer. */
  turn?: Pick<TurnRecord, 'messages' | 'payer'>;
  /** The model answering: prices the calls. */
  model: string;
  /** Counts calls the server reported no usage for. */
  tokens: TokenCounter;
  logger: Logger;
}

export const BUDGET_UNCHECKED =
  '⏹️ Stopped: I cannot check the usage budget right now (my storage is not answering), so I made no further model call. What I found so far is above; ask again in a moment.';

export function runBudget(options: RunBudgetOptions): RunBudget {
  const { ticket, logger } = options;
  let refusal: Refusal | undefined;
  const payers = weighted(options);
  return {
    get refusal() {
      return refusal;
    },
    async beforeCall() {
      try {
        refusal = await ticket.check();
      } catch (error) {
        // Closed, not open: without the shared counters nothing would stop a run spending past the caps.
        logger.error({ err: error, ticket: ticket.id }, 'could not check the usage budget before a model call; the run stops');
        return BUDGET_UNCHECKED;
      }
      return refusal ? budgetRefusedNote(refusal) : undefined;
    },
    async afterCall({ messages, tools, reply }) {
      const usage = reported(reply.usage) ? reply.usage : counted(options.tokens, { messages, tools, reply });
      await Promise.all(
        shares(usage, payers).map(async ({ ticket: t, usage: share }) => {
          try {
            await t.record(share, options.model);
          } catch (error) {
            // The call happened; a lost record is logged, and the next check reads what did land.
            logger.error({ err: error, ticket: t.id, tokens: share.totalTokens }, 'could not record a model call\'s usage');
          }
        }),
      );
    },
  };
}

/** Each paying member's ticket and the weight of their messages (their text's tokens), the payer first. */
function weighted(options: RunBudgetOptions): Array<{ ticket: UsageTicket; weight: number }> {
  const { turn } = options;
  if (!turn || !options.riders?.length) return [{ ticket: options.ticket, weight: 1 }];
  const weightOf = (userId: string) => turn.messages.filter((m) => m.author.id === userId).reduce((sum, m) => sum + Math.max(1, options.tokens.text(m.text)), 0);
  const riders = options.riders.filter((r) => r.userId !== turn.payer);
  return [{ ticket: options.ticket, weight: weightOf(turn.payer) || 1 }, ...riders.map((r) => ({ ticket: r.ticket, weight: weightOf(r.userId) }))];
}

/**
 * A call's usage split among the members it answered: the input by the weight of their messages, the
 * output in equal parts; what rounding leaves goes to the payer, so the shares add up to the call.
 */
export function shares<T>(usage: Usage, payers: ReadonlyArray<{ ticket: T; weight: number }>): Array<{ ticket: T; usage: Usage }> {
  if (payers.length <= 1) return payers.map((p) => ({ ticket: p.ticket, usage }));
  const total = payers.reduce((sum, p) => sum + p.weight, 0) || 1;
  const split = payers.map((p) => {
    const promptTokens = Math.floor((usage.promptTokens * p.weight) / total);
    const completionTokens = Math.floor(usage.completionTokens / payers.length);
    return { ticket: p.ticket, usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens } };
  });
  const first = split[0]!.usage;
  first.promptTokens += usage.promptTokens - split.reduce((sum, s) => sum + s.usage.promptTokens, 0);
  first.completionTokens += usage.completionTokens - split.reduce((sum, s) => sum + s.usage.completionTokens, 0);
  first.totalTokens = first.promptTokens + first.completionTokens;
  return split;
}

/** Whether the server said anything about usage (a server that omits it leaves the figures at 0). */
function reported(usage: Usage): boolean {
  return usage.totalTokens > 0 || usage.promptTokens > 0 || usage.completionTokens > 0;
}

/** One call's usage by the local tokenizer: the request as sent (messages, tool schemas), and the reply's text, reasoning and tool calls. */
export function counted(tokens: TokenCounter, call: { messages: readonly ChatMessage[]; tools?: readonly ToolSchema[]; reply: ModelReply }): Usage {
  const { messages, tools, reply } = call;
  const schemas = tools?.length ? tokens.text(JSON.stringify(tools)) : 0;
  const promptTokens = messages.reduce((sum, m) => sum + tokens.message(m), REPLY_PRIMING + schemas);
  const replyText = [reply.content, reply.reasoning ?? '', ...reply.toolCalls.map((c) => `${c.function.name}${c.function.arguments}`)].join('');
  const completionTokens = tokens.text(replyText);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
