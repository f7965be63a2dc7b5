/**
 * One turn's run, as orchestration only: load what the model is given (the thread's memory and the new
 * messages), run the engine (or resume it after an approval), show each event in the thread view, then
 * either keep the turn waiting for a person or save the exchange and finish the view. Every rule lives
 * in the module it names: the view posts, approvals.ts waits, conversation.ts saves, claim.ts
 * charges. Turns in one thread run one at a time (the pipeline queues them).
 */
import type { Client } from 'discord.js';
import { escapeDisplayName } from '../../agent/clean-text.js';
import type { AgentRun, CallDecision, Interruption, RunInput } from '../../agent/engine.js';
import type { AgentResult } from '../../agent/types.js';
import { TAKEN_BACK, type UsageTicket } from '../../state/index.js';
import { runAudienceViewer } from '../posting/permissions.js';
import { postingEnded } from '../runs/run-registry.js';
import type { TurnTarget } from '../posting/target.js';
import { waitForApproval } from './approvals.js';
import { instructionsFor, keepForRating, loadHistory, saveExchange, toolsCalledBefore, unkeepRating } from './conversation.js';
import type { TurnDeps } from './deps.js';
import type { Resume } from './origin.js';
import type { TurnOutcome } from './outcome.js';
import { askersOf, payerMessage, type TurnMessage, type TurnRecord } from './record.js';
import { giveBack, runBudget } from './claim.js';
import { ThreadView } from './thread-view.js';

/** A turn ready to run: its record, where it posts, and the usage claims that pay for it. */
export interface LiveTurn {
  turn: TurnRecord;
  target: TurnTarget;
  /** The payer's claim (slot and reservation); the claims of the others whose messages it answers. */
  ticket: UsageTicket;
  riders?: ReadonlyArray<{ userId: string; ticket: UsageTicket }>;
  /** Tools every member the turn answers may use, read at each step. */
  allowedTools: () => Promise<ReadonlySet<string>>;
}

/** What a turn that waits for a person may need at once: to be stopped (Stop pressed as it stopped to wait). */
export interface Parking {
  stop(client: Client<true>, id: string): Promise<boolean>;
}

/** Run one turn. Resolves when the answer (or the failure notice) is posted and the memory saved, or the turn waits. */
export function runTurn(deps: TurnDeps, live: LiveTurn, parking: Parking, resume?: Resume): Promise<TurnOutcome> {
  const traceRun = deps.observers?.traceRun;
  if (!traceRun) return runUntraced(deps, live, parking, resume);
  const { scope } = payerMessage(live.turn);
  return traceRun({ guildId: scope.guildId, channelId: scope.channelId, threadId: live.target.conversationKey }, () => runUntraced(deps, live, parking, resume));
}

async function runUntraced(deps: TurnDeps, live: LiveTurn, parking: Parking, resume?: Resume): Promise<TurnOutcome> {
  const { turn, target } = live;
  const log = deps.logger.child(turn.logFields);
  const key = target.conversationKey;
  const { scope } = payerMessage(turn);
  const loaded = resume ? { asked: resume.asked, messages: [], notes: [] } : await loadHistory(deps, turn, key);
  if ('failure' in loaded) {
    await target.send({ content: loaded.failure }).catch(() => undefined);
    return { kind: 'failed', message: loaded.failure };
  }
  const askers = askersOf(turn);
  const messageIds = turn.messages.flatMap((m) => (m.messageId ? [m.messageId] : []));
  const { run, finish } = deps.runs.start({ id: turn.id, threadId: key ?? 'none', guildId: scope.guildId ?? undefined, starterId: turn.payer, askers, reply: turn.reply, messageIds });
  const view = new ThreadView({ target, run, runs: deps.runs, display: turn.settings.display, model: turn.settings.model, pacing: deps.pacing, logger: log });
  if (turn.messages.length > 1) view.note(batchNote(turn.messages));
  for (const line of loaded.notes) view.note(line);

  // The notes of the members this turn answers (only shared ones in a team turn).
  const memory = deps.memberMemory;
  // What a rated answer is kept with: the tools the run was offered (as last read) and those it called.
  let offered: ReadonlySet<string> = new Set();
  const called = new Set<string>(resume ? toolsCalledBefore(resume.state) : []);
  const memoryBlock = await memory?.block({ scope, askers: turn.messages.map((m) => m.author), question: turn.messages.map((m) => m.text).join('\n') });
  const input: Omit<RunInput, 'messages'> = {
    // The members' and the server's tokens today, read before and recorded after every model call.
    callBudget: runBudget({ ticket: live.ticket, riders: live.riders, turn, model: turn.settings.model, tokens: deps.memory.tokenCounter, logger: log }),
    allowedTools: async () => (offered = await live.allowedTools()),
    maxSteps: turn.settings.maxSteps,
    model: deps.modelFor(turn.settings.model),
    instructions: memoryBlock ? `${instructionsFor(turn.settings.persona, turn.skill)}\n\n${memoryBlock}` : instructionsFor(turn.settings.persona, turn.skill),
    signal: run.controller.signal,
    collection: scope.guildId ?? undefined,
    // Passages said in a channel reach the run only when everyone it answers can view that channel.
    canViewChannel: runAudienceViewer(target.client, scope.guildId, askers, scope.channelId),
    // Whether a call waits for a person where the payer asked: read at each call, so a change applies at once.
    // Whom the turn answers and their own words, and where a note stored for them is shown (member memory).
    ...memory?.runInput({ scope, messages: turn.messages, target, beforePosting: () => view.breakLog() }),
    approval: async ({ tool }) => (await deps.rules.at(scope).approvalMode(tool)) === 'ask',
  };
  let result: AgentResult | undefined;
  try {
    let running = resume ? deps.engine.resume(resume.state, resume.decisions, input) : deps.engine.run({ ...input, messages: loaded.messages });
    for (;;) {
      result = await shown(deps, running, view, scope, log, called);
      if (!result.interruption || run.stopCause) break;
      // The run waits for a person: it gives its slot back and keeps its state for the decision.
      await release(live, log);
      const waiting = await waitForApproval({ store: deps.approvals.store, timeoutMs: deps.approvals.timeoutMs, now: deps.now }, turn, loaded.asked, result.interruption, view).catch((error) => {
        log.error({ err: error, runId: run.id }, 'could not keep a turn waiting for approval; its calls are not run');
        return undefined;
      });
      if (waiting) {
        // From here a Stop press finds the waiting turn in storage; one pressed while it was stopping to wait ends it now.
        finish();
        if (run.stopCause !== 'user') return waiting;
        await parking.stop(target.client as Client<true>, turn.id);
        return { kind: 'stopped', message: 'Stopped while it waited for an approval.' };
      }
      // The request could not be posted, so nobody can decide: those calls are not run, and the run goes on.
      running = deps.engine.resume(result.interruption.state, notAsked(result.interruption), input);
    }
    // The last model call is done: the claims go back before the answer shows, so the member may ask again the moment they see it.
    await release(live, log);
    const stopCause = run.stopCause;
    // `/reset` or a deleted question: the person wants this exchange gone, so nothing of it is saved.
    // A message deleted while the run answered it is kept only as the note that it was deleted.
    const asked = loaded.asked.map((m) => (m.messageId && run.deleted.has(m.messageId) ? { ...m, content: TAKEN_BACK } : m));
    const note = stopCause === 'reset' || stopCause === 'deleted' ? '' : await saveExchange(deps.memory.conversations, key, asked, result, deps.logger, memory?.indexer({ scope, target }));
    // Stopped at the step limit in a thread: the asker may let it go on from the thread's memory.
    const continueFor = result.reason === 'step-limit' && result.answer !== undefined && key ? turn.payer : undefined;
    // An answer in a server may be rated (👍 👎 under it): kept for that just before it is posted (if it is).
    const posts = stopCause !== 'reset' && stopCause !== 'deleted' && !postingEnded(stopCause);
    const rated = posts && (await keepForRating(deps, { turn, asked, result, threadId: key, offered, called, deleted: run.deleted }));
    const outcome = await view.finish({ stopCause, buttons: { continueFor, ...(rated ? { votesFor: turn.id } : {}) }, note });
    if (rated && outcome.kind !== 'answered') await unkeepRating(deps, turn);
    return outcome;
  } finally {
    finish();
    log.info({ runId: run.id, reason: result?.reason, steps: result?.steps, tokens: result?.usage.totalTokens, ms: result && Math.round(result.durationMs) }, 'run finished');
    if (result?.error?.code === 'model-quota') {
      log.error({ runId: run.id }, 'the model account is out of credit: every question fails until the operator adds credit or billing at the model provider (or points OPENAI_API_KEY at an account that has it)');
    }
  }
}

/** Read a run's events into the view (and the observers) to its end, noting the tools it calls. */
async function shown(deps: TurnDeps, running: AgentRun, view: ThreadView, scope: TurnMessage['scope'], log: TurnDeps['logger'], called: Set<string>): Promise<AgentResult> {
  for await (const event of running) {
    deps.observers?.onEvent?.(event, scope);
    view.show(event);
    if (event.type === 'action') called.add(event.tool);
    // Later runs on this model start in text mode for an hour: worth a line in the log.
    if (event.type === 'protocol-fallback') log.warn({ reason: event.reason }, 'the model server refused tool calling; using the text protocol for this model for an hour');
  }
  return running.result;
}

/** Give the turn's claims back (idempotent; a failure frees itself when the lease ends). */
function release(live: LiveTurn, log: TurnDeps['logger']): Promise<void> {
  return giveBack(log, live.ticket, ...(live.riders ?? []).map((r) => r.ticket));
}

/** Decisions for calls nobody could be asked about: none of them runs. */
function notAsked(interruption: Interruption): Record<string, CallDecision> {
  return Object.fromEntries(interruption.waiting.map((c) => [c.callId, { approved: false, note: `The call ${c.tool} was not run: it needs a person's approval, and the request for it could not be posted.` }]));
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
