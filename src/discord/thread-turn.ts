/**
 * One turn in a thread: a person's message in, the run's steps shown as they happen, the answer out,
 * and the conversation saved. Turns in one thread run one at a time, in arrival order (ThreadQueue).
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type Message } from 'discord.js';
import { runAgent } from '../agent/run-agent.js';
import type { AgentResult, ChatMessage } from '../agent/types.js';
import { describeError, StorageError } from '../errors.js';
import { toModelMessages, trimHistory, type Author, type NewMessage } from '../state/index.js';
import type { BotContext, RunScope } from './context.js';
import { formatAnswer, formatFailure, formatStep, type DisplayLevel } from './format-steps.js';
import { postAnswer } from './answer-message.js';
import { StepLog } from './step-log.js';
import type { TurnTarget } from './turn-target.js';
import { describeDiscordError } from './discord-errors.js';

export const STOP_PREFIX = 'stop:';

export interface TurnRequest {
  target: TurnTarget;
  scope: RunScope;
  author: Author;
  text: string;
  display: DisplayLevel;
  maxSteps: number;
  /** Log fields for every line about this turn. */
  logFields: Record<string, string | undefined>;
}

export interface TurnOutcome {
  result?: AgentResult;
  answerMessage?: Message;
  /** Set when the turn did not produce an answer: what the person was told. */
  failure?: string;
}

const INSTRUCTIONS =
  'You are threadwise, a bot in a Discord thread where several people may talk to you. Each person\'s message carries their name. ' +
  'Answer in Discord Markdown, concisely. Never mention @everyone or @here.';

function stopButton(runId: string) {
  return [new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`${STOP_PREFIX}${runId}`).setLabel('Stop').setStyle(ButtonStyle.Danger),
  )];
}

/** Prefix each person's message with their name: many compatible servers drop the `name` field. */
function withSpeakers(messages: ChatMessage[], authors: Array<string | undefined>): ChatMessage[] {
  return messages.map((m, i) => (m.role === 'user' && authors[i] ? { ...m, content: `[${authors[i]}] ${m.content}` } : m));
}

/** Run one turn. Resolves when the answer (or the failure notice) is posted and the memory saved. */
export async function runTurn(ctx: BotContext, request: TurnRequest): Promise<TurnOutcome> {
  const { target, scope } = request;
  const log = ctx.logger.child(request.logFields);
  const key = target.conversationKey;
  const userMessage: NewMessage = { role: 'user', content: request.text, author: request.author, at: ctx.now().getTime() };

  let stored: Awaited<ReturnType<BotContext['storage']['conversations']['load']>>['messages'] = [];
  if (key) {
    try {
      stored = (await ctx.storage.conversations.load(key)).messages;
    } catch (error) {
      // Without the history we must not answer (and later save) as if the thread were new.
      log.error({ err: error }, 'could not load the conversation');
      const failure = `❌ I could not read this thread's memory (${describeError(error)}). Nothing was changed; try again in a moment.`;
      await target.send({ content: failure }).catch(() => undefined);
      return { failure };
    }
  }
  const all = [...stored, { ...userMessage, at: userMessage.at! }];
  const trimmed = trimHistory(withSpeakers(toModelMessages(all), all.map((m) => m.author?.name)), {
    budget: ctx.storageConfig.historyTokenBudget,
    // Room for the reply and for what the engine adds: its system prompt and the tool schemas.
    reserveForReply: Math.min(2000, Math.floor(ctx.storageConfig.historyTokenBudget / 4)),
    model: ctx.model.model,
  });

  const { run, finish } = ctx.runs.start({ threadId: key ?? 'none', guildId: scope.guildId ?? undefined, starterId: request.author.id });
  const steps = new StepLog<Message>(
    {
      send: (content, button) => target.send({ content, components: button ? stopButton(run.id) : [] }),
      edit: (message, content, button) => target.edit(message, { content, components: button ? stopButton(run.id) : [] }),
    },
    { minEditIntervalMs: ctx.stepLogIntervalMs, stopButton: true },
  );
  if (trimmed.droppedTurns > 0) {
    steps.append(`-# ℹ️ This thread is long: I am only using its most recent messages (${trimmed.droppedTurns} older exchange${trimmed.droppedTurns === 1 ? '' : 's'} left out).`);
  }

  let result: AgentResult | undefined;
  try {
    const events = runAgent({
      model: ctx.model,
      tools: ctx.tools,
      messages: trimmed.messages,
      allowedTools: () => ctx.allowedTools(scope),
      protocol: ctx.agent.protocol,
      maxSteps: request.maxSteps,
      toolTimeoutMs: ctx.agent.toolTimeoutMs,
      runTimeoutMs: ctx.agent.runTimeoutMs,
      maxToolOutputChars: ctx.agent.toolOutputMaxChars,
      instructions: INSTRUCTIONS,
      signal: run.controller.signal,
      fetch: ctx.runOptions?.fetch,
    });
    let next = await events.next();
    while (!next.done) {
      const text = formatStep(next.value, request.display);
      if (text) steps.append(text);
      if (next.value.type === 'step-start' && next.value.step === 1 && request.display === 'answer') steps.append('-# 🤔 working on it…');
      next = await events.next();
    }
    result = next.value;
    await steps.close();
    return await finishTurn(ctx, request, result, userMessage, run.stopCause);
  } finally {
    await steps.close();
    // The steps could not be shown (a permission taken away mid-thread, say): the answer may still go out.
    if (steps.failure !== undefined) log.warn({ err: steps.failure, runId: run.id }, 'could not post the step log');
    finish();
    log.info({ runId: run.id, reason: result?.reason, steps: result?.steps, tokens: result?.usage.totalTokens, ms: result && Math.round(result.durationMs) }, 'run finished');
  }
}

async function finishTurn(ctx: BotContext, request: TurnRequest, result: AgentResult, userMessage: NewMessage, stopCause?: string): Promise<TurnOutcome> {
  const { target } = request;
  const key = target.conversationKey;
  // Save first: the memory must hold this turn even if Discord refuses the answer message.
  let saveError: unknown;
  if (key) {
    try {
      await ctx.storage.conversations.append(key, [userMessage, ...result.messages], result.usage);
    } catch (error) {
      saveError = error;
      ctx.logger.error({ err: error, threadId: key }, 'could not save the conversation');
    }
  }
  const saveNote = saveError
    ? `\n-# ⚠️ I could not save this exchange to memory (${saveError instanceof StorageError ? saveError.message : describeError(saveError)}).`
    : '';

  if (result.answer !== undefined) {
    try {
      const answerMessage = await postAnswer(target, formatAnswer(result.answer, result, result.sources) + saveNote);
      return { result, answerMessage };
    } catch (error) {
      const failure = describeDiscordError(error, 'post the answer');
      await target.send({ content: failure }).catch(() => undefined);
      return { result, failure };
    }
  }
  const failure =
    stopCause === 'shutdown'
      ? '⏹️ Interrupted: the bot is restarting. Your message is saved; send it again in a minute.'
      : formatFailure(result);
  await target.send({ content: failure + saveNote }).catch((error) => ctx.logger.warn({ err: error }, 'could not post the failure notice'));
  return { result, failure };
}
