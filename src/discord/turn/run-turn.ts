/**
 * One turn in a thread: a person's message in, the run's steps shown as they happen, the answer out,
 * and the conversation saved. Turns in one thread run one at a time, in arrival order (ThreadQueue).
 */
import { AttachmentBuilder, type Message } from 'discord.js';
import { cleanText, escapeDisplayName } from '../../agent/clean-text.js';
import type { AgentResult } from '../../agent/types.js';
import { describeError } from '../../errors.js';
import type { DisplayLevel } from '../../policy/index.js';
import { toModelMessages, trimHistory, type NewMessage, type StoredMessage, type UsageTicket } from '../../state/index.js';
import { AnswerStream } from '../posting/answer-stream.js';
import { approvalGate } from './approvals.js';
import { runAudienceViewer } from '../rules/channel-visibility.js';
import { continueButton } from '../buttons/continue.js';
import { formatAnswer, formatFailure } from '../posting/format-steps.js';
import type { Shown } from '../posting/message-mirror.js';
import { StepLog } from '../posting/step-log.js';
import { stopButton } from '../buttons/stop.js';
import { TurnView, typingIndicator } from './view.js';
import { turnInput } from './input.js';
import type { TurnTarget } from '../posting/target.js';
import type { TurnOutcome } from './outcome.js';
import { instructionsFor } from './persona.js';
import { saveExchange } from './save-exchange.js';
import { describeDiscordError, DiscordCode, discordCode } from '../posting/discord-errors.js';
import type { TurnDeps, TurnMessage, TurnRequest } from './types.js';
import { closedThreadNote } from '../runs/thread-closure.js';
import { postingEnded, type ActiveRun, type RunRegistry, type StopCause } from '../runs/run-registry.js';
import { runBudget } from './run-budget.js';
import { filesNote, filesOut, MAX_FILES_PER_MESSAGE } from '../posting/tool-files.js';

/** How long a run may show nothing before its thread gets a line with the Stop button. */
const STOP_OFFER_MS = 1_000;

/** A turn ready to run: the messages it answers, where it posts, the channel's settings, and its usage ticket. */
export interface TurnRun extends Omit<TurnRequest, keyof TurnMessage> {
  /** The member whose slot and tokens the turn uses: they may Continue it. */
  author: TurnMessage['author'];
  /** The messages answered, in arrival order (several when people posted while the thread was busy). */
  messages: TurnMessage[];
  /** Everyone whose message the turn answers: each may stop it or decide its approvals. */
  askers: string[];
  /** The tools the turn may use, read at each step. */
  allowedTools: () => Promise<ReadonlySet<string>>;
  target: TurnTarget;
  display: DisplayLevel;
  maxSteps: number;
  /** The model that answers here, and the moderators' persona for this place, if any. */
  model: string;
  persona?: string;
  ticket: UsageTicket;
}

/** Run one turn. Resolves when the answer (or the failure notice) is posted and the memory saved. */
export function runTurn(deps: TurnDeps, request: TurnRun): Promise<TurnOutcome> {
  const traceRun = deps.observers?.traceRun;
  if (!traceRun) return runTurnUntraced(deps, request);
  const place = { guildId: request.scope.guildId, channelId: request.scope.channelId, threadId: request.target.conversationKey };
  return traceRun(place, () => runTurnUntraced(deps, request));
}

async function runTurnUntraced(deps: TurnDeps, request: TurnRun): Promise<TurnOutcome> {
  const { target, scope } = request;
  const log = deps.logger.child(request.logFields);
  const key = target.conversationKey;
  // Images go only to a model that takes them: the one that answers here.
  const inputs = await Promise.all(request.messages.map((m) => turnInput(deps.attachments, m, request.model)));
  const at = deps.now().getTime();
  const userMessages: NewMessage[] = inputs.map((input, i) => ({ role: 'user', content: input.content, author: request.messages[i]!.author, at }));

  let stored: StoredMessage[] = [];
  if (key) {
    try {
      stored = (await deps.memory.conversations.load(key)).messages;
    } catch (error) {
      // Without the history we must not answer (and later save) as if the thread were new.
      log.error({ err: error }, 'could not load the conversation');
      const failure = `❌ I could not read this thread's memory (${describeError(error)}). Nothing was changed; try again in a moment.`;
      await target.send({ content: failure }).catch(() => undefined);
      return { kind: 'failed', message: failure };
    }
  }
  const all = [...stored, ...userMessages.map((m) => ({ ...m, at }))];
  const trimmed = trimHistory(toModelMessages(all), {
    budget: deps.memory.historyTokenBudget,
    // Room for the reply and for what the engine adds: its system prompt and the tool schemas.
    reserveForReply: Math.min(2000, Math.floor(deps.memory.historyTokenBudget / 4)),
    counter: deps.memory.tokenCounter,
  });

  const { run, finish } = deps.runs.start({ threadId: key ?? 'none', guildId: scope.guildId ?? undefined, starterId: request.author.id, askers: request.askers, reply: request.reply });
  const sink = messagesIn(target, run, deps.runs, log);
  const steps = new StepLog<Message>(sink, { minEditIntervalMs: deps.pacing.stepLogIntervalMs, stopButton: true });
  const answer = new AnswerStream<Message>(sink, { minEditIntervalMs: deps.pacing.answerEditIntervalMs });
  const typing = typingIndicator(() => target.typing());
  const view = new TurnView(steps, answer, typing, request.display);
  if (request.messages.length > 1) steps.append(batchNote(request.messages));
  for (const input of inputs) if (input.notice) steps.append(input.notice);
  if (trimmed.droppedTurns > 0) {
    steps.append(`-# ℹ️ This thread is long: I am only using its most recent messages (${trimmed.droppedTurns} older exchange${trimmed.droppedTurns === 1 ? '' : 's'} left out).`);
  }

  // Memory hookup 1: the notes of the members this turn answers (only shared ones in a team turn).
  const memoryBlock = await deps.memberMemory?.block({ scope, askers: request.messages.map((m) => m.author), question: request.messages.map((m) => m.text).join('\n') });
  // A slow first model call (a long prompt on a slow server) still gets a Stop button soon.
  const runStartedAt = performance.now();
  const offerStop = setTimeout(() => view.offerStop(runStartedAt), STOP_OFFER_MS);
  let result: AgentResult | undefined;
  try {
    const agentRun = deps.engine.run({
      // The member's and the server's tokens today, read before and recorded after every model call.
      callBudget: runBudget({ ticket: request.ticket, model: request.model, tokens: deps.memory.tokenCounter, logger: log }),
      messages: trimmed.messages,
      allowedTools: request.allowedTools,
      maxSteps: request.maxSteps,
      model: deps.modelFor(request.model),
      instructions: memoryBlock ? `${instructionsFor(request.persona)}\n\n${memoryBlock}` : instructionsFor(request.persona),
      signal: run.controller.signal,
      collection: scope.guildId ?? undefined,
      // Passages said in a channel reach the run only when everyone it answers can view that channel.
      canViewChannel: runAudienceViewer(target.client, scope.guildId, request.askers, scope.channelId),
      // Memory hookup 3: whom the turn answers, their own words, and where a stored note is shown.
      ...deps.memberMemory?.runInput({ scope, messages: request.messages, target, beforePosting: () => steps.flushAndBreak() }),
      beforeTool: approvalGate({
        registry: deps.approvals.registry,
        target,
        runId: run.id,
        starterId: request.author.id,
        guildId: scope.guildId,
        signal: run.controller.signal,
        timeoutMs: deps.approvals.timeoutMs,
        modeOf: (tool, call) => deps.rules.at(scope).approvalMode(tool, call),
        beforePosting: () => steps.flushAndBreak(),
        audit: { guildSettings: deps.approvals.guildSettings, now: deps.now, logger: deps.logger, client: target.client },
      }),
    });
    for await (const event of agentRun) {
      deps.observers?.onEvent?.(event, scope);
      view.show(event);
      // Later runs on this model start in text mode for an hour: worth a line in the log.
      if (event.type === 'protocol-fallback') log.warn({ runId: run.id, reason: event.reason }, 'the model server refused tool calling; using the text protocol for this model for an hour');
    }
    result = await agentRun.result;
    await steps.close();
    return await finishTurn(deps, request, result, userMessages, answer, run.stopCause);
  } finally {
    clearTimeout(offerStop);
    typing.close();
    await steps.close();
    // The steps could not be shown (a permission taken away mid-thread, say): the answer may still go out.
    if (steps.failure !== undefined && !postingEnded(run.stopCause)) log.warn({ err: steps.failure, runId: run.id }, 'could not post the step log');
    finish();
    log.info({ runId: run.id, reason: result?.reason, steps: result?.steps, tokens: result?.usage.totalTokens, ms: result && Math.round(result.durationMs) }, 'run finished');
    if (result?.error?.code === 'model-quota') {
      log.error({ runId: run.id }, 'the model account is out of credit: every question fails until the operator adds credit or billing at the model provider (or points OPENAI_API_KEY at an account that has it)');
    }
  }
}

/** The step log's first line when a turn answers several messages at once: whose, so each person sees theirs was taken. */
function batchNote(messages: readonly TurnMessage[]): string {
  const counts = new Map<string, { name: string; n: number }>();
  for (const { author } of messages) {
    const entry = counts.get(author.id) ?? { name: author.name, n: 0 };
    entry.n++;
    counts.set(author.id, entry);
  }
  const who = [...counts.values()].map(({ name, n }) => `${escapeDisplayName(name)}${n > 1 ? ` ×${n}` : ''}`).join(', ');
  return `-# 📨 Answering ${messages.length} messages together: ${who}`;
}

/** Discord's answers that mean the bot may post nothing more there: missing access or permissions, a locked thread, a deleted channel. */
const CANNOT_POST: ReadonlySet<number> = new Set([DiscordCode.MissingAccess, DiscordCode.MissingPermissions, DiscordCode.ThreadLocked, 10003]);

/** The step log's and the answer's messages, as the turn's target takes them. */
function messagesIn(target: TurnTarget, run: ActiveRun, runs: RunRegistry, log: TurnDeps['logger']) {
  // The model's text and tools' output may carry invisible and spoofing characters: none reach Discord.
  // A chart in the step log where the bot may not attach files: said in words, so the log goes on.
  const outgoing = (m: Shown) => {
    const files = m.files && target.canAttachFiles() ? m.files : undefined;
    return {
      content: cleanText(m.files && !files ? `${m.content} (not shown: I lack the Attach Files permission here)` : m.content),
      components: m.button ? stopButton.build(run.id) : m.continueFor ? [continueButton.build(m.continueFor)] : [],
      ...(files ? { files: files.map((f) => new AttachmentBuilder(f.data, { name: f.name, description: f.description })) } : {}),
    };
  };
  // A thread closed under the run gets nothing more (an edit would even reopen an archived one).
  const open = () => {
    if (postingEnded(run.stopCause)) throw new Error(`not posted: ${run.stopCause}`);
  };
  // The first "you cannot post here" stops the run: no further model call for an answer nobody would see.
  const refused = (error: unknown): never => {
    const code = discordCode(error);
    if (code !== undefined && CANNOT_POST.has(code) && !run.stopCause) {
      log.warn({ runId: run.id, code }, 'Discord refused a post in the thread: stopping the run (no further model calls)');
      runs.stop(run.id, 'cannot-post');
    }
    throw error;
  };
  return {
    send: async (m: Shown) => {
      open();
      const sent = await target.send(outgoing(m)).catch(refused);
      if (m.button) run.onMessage(sent.channelId, sent.id);
      return sent;
    },
    edit: async (message: Message, m: Shown) => {
      open();
      await target.edit(message, outgoing(m)).catch(refused);
    },
    remove: async (message: Message) => {
      open();
      await target.remove(message);
    },
  };
}

async function finishTurn(deps: TurnDeps, request: TurnRun, result: AgentResult, userMessages: NewMessage[], answer: AnswerStream<Message>, stopCause?: StopCause): Promise<TurnOutcome> {
  const { target } = request;
  const key = target.conversationKey;
  if (stopCause === 'reset') {
    // `/reset` stopped it: the person wants this exchange gone, so nothing of it is saved or posted
    // (its tokens were counted call by call, as they were spent).
    await answer.finish('', false);
    return { kind: 'stopped', result, message: 'Stopped: the thread\'s memory was cleared.' };
  }
  // Memory hookup 2: the saved exchange is indexed for past-thread search.
  const saveNote = await saveExchange(deps.memory.conversations, key, userMessages, result, deps.logger, deps.memberMemory?.indexer({ scope: request.scope, target }));
  if (postingEnded(stopCause)) {
    // The moderator's decision stands: nothing more goes into the thread, not even a notice.
    await answer.finish('', false);
    return { kind: 'stopped', result, message: closedThreadNote(stopCause) };
  }
  if (result.answer !== undefined) {
    // Stopped at the step limit in a thread: the asker may let it go on from the thread's memory.
    const continueFor = result.reason === 'step-limit' && key ? request.author.id : undefined;
    const charts = filesOut(result.attachments ?? []);
    const chartNote = filesNote(charts.length, target.canAttachFiles(), MAX_FILES_PER_MESSAGE - 1);
    await answer.finish(formatAnswer(result.answer, { ...result, model: request.model }, result.sources) + chartNote + saveNote, target.canAttachFiles(), continueFor, charts);
    if (answer.failure === undefined && answer.messages[0]) return { kind: 'answered', result, answerMessage: answer.messages[0] };
    const failure = describeDiscordError(answer.failure, 'post the answer', target.missingPermissions?.());
    await target.send({ content: failure }).catch(() => undefined);
    return { kind: 'failed', result, message: failure };
  }
  const failure =
    stopCause === 'shutdown'
      ? '⏹️ Interrupted: the bot is restarting. Your message is saved; send it again in a minute.'
      : formatFailure(result);
  if (answer.started) {
    // Part of an answer was already on screen: keep it, marked, with what went wrong under it.
    await answer.finish(`${answer.partial}\n\n${failure}${saveNote}`, target.canAttachFiles());
  } else {
    await answer.finish('', false);
    await target.send({ content: failure + saveNote }).catch((error) => deps.logger.warn({ err: error }, 'could not post the failure notice'));
  }
  return { kind: 'failed', result, message: failure };
}
