/**
 * The usage ticket as the engine's call budget: before each model call, one shared read of what is
 * left of the member's and the server's daily tokens (other runs, in this process or another, spend
 * them too); after each call, its tokens recorded at once. A server that reports no usage (0, or none
 * at all: some local servers) is counted with the local tokenizer instead, so it is capped as well.
 */
import type { CallBudget } from '../../agent/run-plan.js';
import type { ChatMessage, ModelReply, ToolSchema, Usage } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import { budgetRefusedNote } from '../text/usage-text.js';
import { REPLY_PRIMING, type Refusal, type TokenCounter, type UsageTicket } from '../../state/index.js';

/** The budget of one run, and the refusal that ended it, if one did. */
export interface RunBudget extends CallBudget {
  readonly refusal?: Refusal;
}

export interface RunBudgetOptions {
  ticket: UsageTicket;
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
      try {
        await ticket.record(usage, options.model);
      } catch (error) {
        // The call happened; a lost record is logged, and the next check reads what did land.
        logger.error({ err: error, ticket: ticket.id, tokens: usage.totalTokens }, 'could not record a model call\'s usage');
      }
    },
  };
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
