/**
 * The ReAct loop. `runAgent` is an async generator: it yields typed events as the run goes (so a
 * renderer can show each step as it happens) and returns the run's result. It never throws for a
 * model or tool failure: those end the run with reason 'error' and an `error` event.
 */
import { AgentError, ModelError, describeError } from '../errors.js';
import type { Source, ToolDefinition } from './tool.js';
import { ToolRunner, type Observation, type PreparedCall } from './tool-runner.js';
import { stepNote, type Interpreted, type PlannedCall, type ProtocolDriver } from './protocol.js';
import { NativeProtocol } from './native-protocol.js';
import { TextProtocol } from './text-protocol.js';
import { addUsage, emptyUsage, learnedProtocol, rememberProtocol } from './run-support.js';
import type { AgentEvent, AgentResult, ChatMessage, ChatModel, EndReason, ModelReply, ProtocolSetting } from './types.js';

/** What a person decides in manual (`--step`) mode before a tool runs. */
export type ToolDecision = { kind: 'run' } | { kind: 'observe'; text: string } | { kind: 'stop' };

export interface RunAgentOptions {
  model: ChatModel;
  /** Every tool the bot knows. */
  tools: readonly ToolDefinition[];
  /** The conversation so far, ending with the new user message. No system message: the engine adds it. */
  messages: readonly ChatMessage[];
  /** Names allowed right now; asked again before every step so policy changes apply mid-run. Default: all. */
  allowedTools?: () => ReadonlySet<string> | Promise<ReadonlySet<string>>;
  protocol?: ProtocolSetting;
  maxSteps?: number;
  toolTimeoutMs?: number;
  runTimeoutMs?: number;
  maxToolOutputChars?: number;
  /** Extra system-prompt text (where the bot is, who is talking). */
  instructions?: string;
  signal?: AbortSignal;
  offerFinalAnswerTool?: boolean;
  /** Manual mode: asked before each tool runs. */
  beforeTool?: (call: { step: number; tool: string; input: unknown }) => Promise<ToolDecision>;
  fetch?: typeof fetch;
  now?: () => Date;
  /** Monotonic milliseconds, for durations. */
  clock?: () => number;
}

export const DEFAULTS = { maxSteps: 8, toolTimeoutMs: 15_000, runTimeoutMs: 300_000, maxToolOutputChars: 4_000 };

class StopRequested extends Error {}
class RunTimeout extends Error {}

export async function* runAgent(options: RunAgentOptions): AsyncGenerator<AgentEvent, AgentResult, void> {
  const clock = options.clock ?? (() => performance.now());
  const started = clock();
  const maxSteps = options.maxSteps ?? DEFAULTS.maxSteps;
  const runTimeoutMs = options.runTimeoutMs ?? DEFAULTS.runTimeoutMs;
  // The run's time limit is a deadline handed down to each model request and tool call (as their own
  // timeouts), not a timer and AbortController of the run's own: the caller's signal is used as is.
  const deadline = Date.now() + runTimeoutMs;
  const signal = options.signal;
  const timedOut = () => Date.now() >= deadline;
  const runner = new ToolRunner({
    tools: options.tools,
    timeoutMs: options.toolTimeoutMs ?? DEFAULTS.toolTimeoutMs,
    maxOutputChars: options.maxToolOutputChars ?? DEFAULTS.maxToolOutputChars,
    context: { fetch: options.fetch ?? globalThis.fetch, now: options.now ?? (() => new Date()) },
    clock,
  });
  const known = runner.knownNames;
  const setting = options.protocol ?? 'auto';
  const native = new NativeProtocol({ offerFinalAnswerTool: options.offerFinalAnswerTool });
  let driver: ProtocolDriver =
    setting === 'text' || (setting === 'auto' && learnedProtocol(options.model) === 'text') ? new TextProtocol() : native;

  const usage = emptyUsage();
  const added: ChatMessage[] = [];
  const sources: Source[] = [];
  let steps = 0;
  let answer: string | undefined;
  let forced = false;
  let reason: EndReason = 'answer';
  let error: { code: string; message: string } | undefined;
  let remindedLastStep = false;

  const everyTool: ReadonlySet<string> = new Set(options.tools.map((t) => t.name));
  // Synchronous when there is no policy, so the common case costs no extra microtask per step.
  const allowedNow = (): ReadonlySet<string> | Promise<ReadonlySet<string>> => (options.allowedTools ? options.allowedTools() : everyTool);

  // The prompt and the request's tool list only change when the protocol or the allowed tools do:
  // build them once per change (with no policy, the allowed set is the same object every step).
  let cacheFor: { driver: ProtocolDriver; allowed: ReadonlySet<string>; key: string } | undefined;
  let prompt = '';
  let fields: ReturnType<ProtocolDriver['requestFields']> = {};
  let offered: readonly ToolDefinition[] = [];
  const prepare = (allowed: ReadonlySet<string>) => {
    if (cacheFor?.driver === driver && cacheFor.allowed === allowed) return;
    const nowOffered = options.tools.filter((t) => allowed.has(t.name));
    const key = nowOffered.map((t) => t.name).join(',');
    if (cacheFor?.driver !== driver || cacheFor.key !== key) {
      offered = nowOffered;
      prompt = driver.systemPrompt(offered, maxSteps, options.instructions);
      fields = driver.requestFields(offered, false);
    }
    cacheFor = { driver, allowed, key };
  };
  const countUsage = (reply: ModelReply): ModelReply => {
    addUsage(usage, reply.usage);
    return reply;
  };
  // A plain function returning the model's promise: one async frame fewer on every step.
  const call = (final: boolean, allowed: ReadonlySet<string>): Promise<ModelReply> => {
    prepare(allowed);
    const messages: ChatMessage[] = [{ role: 'system', content: prompt }, ...driver.prepareHistory(options.messages), ...driver.prepareHistory(added)];
    if (final) messages.push(driver.finalNudge(maxSteps));
    if (timedOut()) return Promise.reject(new RunTimeout());
    const request = final ? driver.requestFields(offered, true) : fields;
    return options.model.complete({ messages, ...request, signal, deadline }).then(countUsage);
  };

  yield { type: 'run-start', protocol: driver.name, maxSteps, tools: [...(await allowedNow())] };
  try {
    while (true) {
      if (steps >= maxSteps) {
        reason = 'step-limit';
        forced = true;
        const reply = await call(true, await allowedNow());
        answer = driver.finalAnswer(reply, known);
        if (answer !== undefined) {
          added.push({ role: 'assistant', content: answer });
          yield { type: 'answer', text: answer, sources: dedupe(sources), forced: true };
        }
        break;
      }
      const pendingAllowed = allowedNow();
      const allowed = pendingAllowed instanceof Set ? pendingAllowed : await pendingAllowed;
      let reply: ModelReply;
      try {
        yield { type: 'step-start', step: steps + 1, maxSteps };
        reply = await call(false, allowed);
      } catch (e) {
        if (setting === 'auto' && driver.name === 'native' && e instanceof ModelError && e.kind === 'tools-unsupported') {
          driver = new TextProtocol();
          rememberProtocol(options.model, 'text');
          yield { type: 'protocol-fallback', from: 'native', to: 'text', reason: e.message };
          continue;
        }
        throw e;
      }
      steps++;
      const turn = driver.interpret(reply, steps, known);
      if (turn.thought) yield { type: 'thought', step: steps, text: turn.thought };

      if (turn.reminder) {
        // A model that twice answers in plain prose, ignoring the format, is answering: accept it.
        if (remindedLastStep && turn.thought && driver.name === 'text') {
          answer = turn.thought;
          added.push({ role: 'assistant', content: answer });
          yield { type: 'answer', text: answer, sources: dedupe(sources), forced: false };
          break;
        }
        remindedLastStep = true;
        added.push(turn.assistant, turn.reminder);
        yield { type: 'format-reminder', step: steps, text: turn.reminder.content as string };
        continue;
      }
      remindedLastStep = false;
      if (turn.answer !== undefined) {
        answer = turn.answer;
        added.push(turn.assistant);
        yield { type: 'answer', text: answer, sources: dedupe(sources), forced: false };
        break;
      }
      // Asked again: a moderator may have turned a tool off while the model was thinking.
      const current = allowedNow();
      const allowedNowForCalls = current instanceof Set ? current : await current;
      const prepared = turn.calls.map((c) => runner.prepare(c.tool, c.raw, allowedNowForCalls));
      for (const [i, c] of turn.calls.entries()) {
        const p = prepared[i]!;
        yield { type: 'action', step: steps, callId: c.callId, tool: c.tool, input: 'args' in p ? p.args : c.raw.text };
      }
      // The calls run concurrently; their results are taken (and shown) in call order.
      const pending = await startCalls(turn, prepared, steps);
      for (const p of pending) p.catch(() => undefined); // awaited below in call order; never unhandled
      const outs: Array<{ call: PlannedCall; output: string }> = [];
      for (const [i, c] of turn.calls.entries()) {
        const obs = await pending[i]!;
        sources.push(...obs.sources);
        outs.push({ call: c, output: obs.output });
        yield { type: 'observation', step: steps, callId: c.callId, tool: c.tool, output: obs.output, isError: obs.isError, durationMs: obs.durationMs, truncated: obs.truncated };
      }
      added.push(turn.assistant, ...driver.observationMessages(outs, stepNote(steps + 1, maxSteps)));
    }
  } catch (e) {
    if (signal?.aborted) {
      reason = 'aborted';
      error = { code: 'aborted', message: 'The run was stopped.' };
    } else if (e instanceof RunTimeout || timedOut()) {
      reason = 'error';
      error = { code: 'run-timeout', message: `The run took longer than ${Math.round(runTimeoutMs / 1000)} s and was stopped.` };
    } else if (e instanceof StopRequested) {
      reason = 'aborted';
      error = { code: 'aborted', message: 'The run was stopped.' };
    } else {
      reason = 'error';
      error = e instanceof AgentError ? { code: e.code, message: e.message } : { code: 'internal', message: describeError(e) };
    }
    if (reason === 'error') yield { type: 'error', ...error };
  }

  const durationMs = clock() - started;
  yield { type: 'run-end', reason, steps, usage: { ...usage }, durationMs };
  return {
    reason,
    answer,
    sources: dedupe(sources),
    steps,
    forcedFinalAnswer: forced,
    usage,
    durationMs,
    protocol: driver.name,
    messages: added,
    error,
  };

  /** Announce, run (concurrently, results in call order) and record one step's tool calls. */
  /** Start a step's prepared calls: concurrently, or one at a time when a person approves each. */
  async function startCalls(turn: Interpreted, prepared: PreparedCall[], step: number): Promise<Array<Promise<Observation>>> {
    // Without manual mode every call starts at once, straight into the runner.
    if (!options.beforeTool) return prepared.map((p) => runner.execute(p, signal, deadline));
    const pending: Array<Promise<Observation>> = [];
    for (const [i, c] of turn.calls.entries()) {
      const running = decide(c, prepared[i]!, step);
      await running.catch(() => undefined); // a person approves one call at a time
      pending.push(running);
    }
    return pending;
  }

  async function decide(c: PlannedCall, prepared: PreparedCall, step: number): Promise<Observation> {
    if (!('error' in prepared)) {
      const decision = await options.beforeTool!({ step, tool: c.tool, input: prepared.args });
      if (decision.kind === 'stop') throw new StopRequested();
      if (decision.kind === 'observe') return runner.injected(decision.text);
    }
    return runner.execute(prepared, signal, deadline);
  }

}

function dedupe(sources: Source[]): Source[] {
  const seen = new Set<string>();
  return sources.filter((s) => !seen.has(s.url) && seen.add(s.url));
}
