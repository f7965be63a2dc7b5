/**
 * The ReAct loop, as a small state machine: ask the model, read its reply into the next step (run
 * tools, take the answer, or remind it of the format), and go round until there is an answer or a limit
 * ends the run. It publishes typed events as it goes and never throws: a model or tool failure ends the
 * run with reason 'error' and an `error` event.
 */
import { AgentError, ModelError, describeError } from '../errors.js';
import { cutOffOf, filtered, honest } from './endings.js';
import { PromptCache } from './prompt-cache.js';
import { stepNote, type NextStep, type ObservationOut, type PlannedCall, type ProtocolDriver } from './protocol.js';
import type { RunPlan, ToolDecision } from './run-plan.js';
import { filesFromState, filesToState, type CallDecision, type Interruption, type RunState, type WaitingCall } from './run-state.js';
import type { StreamedText } from './text-stream.js';
import type { ToolAttachment } from './tool.js';
import type { Observation, PreparedCall } from './tool-runner.js';
import { imagesMessage } from './tool-images.js';
import type { AgentEvent, AgentResult, ChatMessage, ChatModel, CutOff, EndReason, ModelDelta, ModelReply, Usage } from './types.js';
import { addUsage, emptyUsage } from './usage.js';

/** How the loop ended, before the result is put together. */
interface Ending {
  reason: EndReason;
  answer?: string;
  cutOff?: CutOff;
  error?: { code: string; message: string };
  interruption?: Interruption;
}

/** A step's tool calls: the model's message and its calls. */
type ToolStep = { assistant: ChatMessage; calls: PlannedCall[] };

type Limit = 'step-limit' | 'token-budget';

type TextDeltaEvent = Extract<AgentEvent, { type: 'text-delta' }>;
type ObservationEvent = Extract<AgentEvent, { type: 'observation' }>;

class StopRequested extends Error {}
/** The shared budget refused the next model call; the message says which and until when. */
class BudgetRefused extends Error {}
class RunTimeout extends Error {}

export class RunLoop {
  private driver: ProtocolDriver;
  private steps = 0;
  private readonly usage: Usage = emptyUsage();
  /** Messages this run adds after the input history: what the conversation store appends. */
  private readonly added: ChatMessage[] = [];
  private readonly attachments: ToolAttachment[] = [];
  private remindedLastStep = false;
  private readonly deadline: number;
  private readonly prompts: PromptCache;

  constructor(
    private readonly plan: RunPlan,
    private readonly emit: (event: AgentEvent) => void,
  ) {
    const learned = plan.protocol === 'auto' ? plan.memory.get(modelKey(plan.model)) : undefined;
    this.driver = plan.protocol === 'text' || learned === 'text' ? plan.drivers.text : plan.drivers.native;
    // The run's time limit is a deadline handed to each model request and tool call as their own
    // timeout, not a timer of the run's own: the caller's signal is used as it is.
    this.deadline = Date.now() + plan.runTimeoutMs;
    this.prompts = new PromptCache(plan.tools, plan.maxSteps, plan.instructions);
  }

  /**
   * Run to the end, or, with `resume`, go on from an interrupted run's state: its waiting step is run
   * with the decisions first (an approved call runs, a denied one is answered with the decision's note).
   */
  async run(resume?: { state: RunState; decisions: Readonly<Record<string, CallDecision>> }): Promise<AgentResult> {
    const { plan } = this;
    const started = plan.clock() - (resume?.state.durationMs ?? 0);
    let ending: Ending;
    try {
      this.emit({ type: 'run-start', protocol: this.driver.name, maxSteps: plan.maxSteps, tools: [...(await plan.allowedTools())], ...(resume ? { resumed: true } : {}) });
      ending = (resume && (await this.resumeFrom(resume.state, resume.decisions))) || (await this.loop());
    } catch (error) {
      ending = this.failure(error);
    }
    if (ending.reason === 'error' && ending.error) this.emit({ type: 'error', ...ending.error });
    const durationMs = plan.clock() - started;
    this.emit({ type: 'run-end', reason: ending.reason, steps: this.steps, usage: { ...this.usage }, durationMs, ...(ending.error ? { error: ending.error } : {}) });
    return {
      reason: ending.reason,
      answer: ending.answer,
      cutOff: ending.cutOff,
      sources: this.plan.citations.list(),
      ...this.files(),
      steps: this.steps,
      usage: this.usage,
      durationMs,
      protocol: this.driver.name,
      messages: this.added,
      error: ending.error,
      ...(ending.interruption ? { interruption: { ...ending.interruption, state: { ...ending.interruption.state, durationMs } } } : {}),
    };
  }

  /** Take up an interrupted run where it stopped: its counts, its messages, then its waiting step. */
  private async resumeFrom(state: RunState, decisions: Readonly<Record<string, CallDecision>>): Promise<Ending | undefined> {
    this.driver = this.plan.drivers[state.protocol];
    this.steps = state.steps;
    Object.assign(this.usage, state.usage);
    this.added.push(...state.added);
    this.attachments.push(...filesFromState(state.files));
    this.remindedLastStep = state.remindedLastStep;
    for (const source of state.sources) this.plan.citations.cite(source);
    const step: ToolStep = { assistant: state.pending.assistant, calls: state.pending.calls.map(({ callId, tool, raw }) => ({ callId, tool, raw })) };
    // Asked again: the decision may come hours later, and a moderator may have turned a tool off since.
    const prepared = await this.prepare(step.calls, false);
    const decided = (call: PlannedCall): ToolDecision | undefined => {
      const decision = decisions[call.callId];
      if (!state.pending.calls.find((c) => c.callId === call.callId)?.needsApproval) return undefined;
      if (!decision) return { kind: 'observe', text: `The call ${call.tool} was not run: it needed a person's approval, and none was given.` };
      return decision.approved ? { kind: 'run', ...(decision.by ? { approvedBy: decision.by } : {}) } : { kind: 'observe', text: decision.note };
    };
    const done = new Map(state.pending.calls.flatMap((c, i) => (c.done ? [[c.callId, { call: step.calls[i]!, output: c.done.output, ...(c.done.images ? { images: c.done.images } : {}) }] as const] : [])));
    await this.finishStep(step, prepared, decided, done);
    this.remindedLastStep = false;
    return undefined;
  }

  private async loop(): Promise<Ending> {
    while (true) {
      const limit = this.limitReached();
      if (limit) return this.forcedAnswer(limit);
      const allowed = await this.plan.allowedTools();
      this.emit({ type: 'step-start', step: this.steps + 1, maxSteps: this.plan.maxSteps });
      const reply = await this.ask(allowed);
      this.steps++;
      const next = honest(this.driver.interpret(reply, this.steps, this.plan.knownNames), cutOffOf(reply.finishReason), this.driver);
      if (next === 'filtered') return filtered();
      const ending = await this.take(next);
      if (ending) return ending;
    }
  }

  private limitReached(): Limit | undefined {
    if (this.steps >= this.plan.maxSteps) return 'step-limit';
    const budget = this.plan.tokenBudget;
    if (budget !== undefined && this.steps > 0 && this.usage.totalTokens >= budget) return 'token-budget';
    return undefined;
  }

  /** Act on one reply; an Ending when the run is over. */
  private async take(next: NextStep): Promise<Ending | undefined> {
    // A model that twice answers in plain prose, ignoring the format, is answering: take it (shown once, as the answer).
    if (next.kind === 'remind' && next.prose && this.remindedLastStep) return this.answer(next.prose, { role: 'assistant', content: next.prose }, next.cutOff);
    if (next.thought) this.emit({ type: 'thought', step: this.steps, text: next.thought });
    switch (next.kind) {
      case 'answer':
        return this.answer(next.answer, next.assistant, next.cutOff);
      case 'remind':
        this.remindedLastStep = true;
        this.added.push(next.assistant, next.reminder);
        this.emit({ type: 'format-reminder', step: this.steps, text: next.reminder.content });
        return undefined;
      case 'tools': {
        const prepared = await this.prepare(next.calls, true);
        const waiting = await this.waitingFor(next.calls, prepared);
        if (waiting.some((c) => c.needsApproval)) return this.interrupt(next, prepared, waiting);
        await this.finishStep(next, prepared);
        this.remindedLastStep = false;
        return undefined;
      }
    }
  }

  private answer(text: string, assistant: ChatMessage, cutOff?: CutOff): Ending {
    this.added.push(assistant);
    this.emit({ type: 'answer', text, sources: this.plan.citations.list(), forced: false, ...(cutOff ? { cutOff } : {}), ...this.files() });
    return { reason: 'answer', answer: text, cutOff };
  }

  /**
   * Resolve a step's calls against the tools allowed now (asked again: a moderator may have turned a
   * tool off while the model was thinking); `announce` shows each call as an action.
   */
  private async prepare(calls: PlannedCall[], announce: boolean): Promise<PreparedCall[]> {
    const allowed = await this.plan.allowedTools();
    const prepared = calls.map((c) => this.plan.runner.prepare(c.tool, c.raw, allowed));
    if (announce) {
      calls.forEach((c, i) => {
        const p = prepared[i]!;
        this.emit({ type: 'action', step: this.steps, callId: c.callId, tool: c.tool, input: 'args' in p ? p.args : c.raw.text });
      });
    }
    return prepared;
  }

  /**
   * Which of a step's calls wait for a person: those the approval rule marks, and those whose tool says
   * this call must wait (with why, and who may decide). None without an approval rule (the terminal asks
   * in `beforeTool` instead); a bad call never waits.
   */
  private async waitingFor(calls: PlannedCall[], prepared: PreparedCall[]): Promise<WaitingCall[]> {
    const rule = this.plan.approval;
    if (!rule) return [];
    const waiting: WaitingCall[] = [];
    for (const [i, c] of calls.entries()) {
      const p = prepared[i]!;
      const own = 'args' in p ? await this.plan.runner.approvalNeed(p) : undefined;
      const needsApproval = 'args' in p && (own !== undefined || (await rule({ tool: c.tool, input: p.args })));
      waiting.push({ callId: c.callId, tool: c.tool, raw: c.raw, ...('args' in p ? { input: p.args } : {}), needsApproval, ...(own ? { approval: own } : {}) });
    }
    return waiting;
  }

  /**
   * The run stops here with its state: the calls of the step that need no person run now (their results
   * are kept with the step), the others wait; a person decides, and the run resumes.
   */
  private async interrupt(step: ToolStep, prepared: PreparedCall[], calls: WaitingCall[]): Promise<Ending> {
    const early = step.calls.flatMap((c, i) => (calls[i]!.needsApproval ? [] : [i]));
    const results = await this.runCalls(early.map((i) => step.calls[i]!), early.map((i) => prepared[i]!));
    const done = new Map(early.map((i, n) => [step.calls[i]!.callId, results[n]!]));
    const kept = calls.map((c) => {
      const result = done.get(c.callId);
      return result ? { ...c, done: { output: result.output, ...(result.images ? { images: result.images } : {}) } } : c;
    });
    const state: RunState = {
      v: 1,
      protocol: this.driver.name,
      steps: this.steps,
      usage: { ...this.usage },
      messages: [...this.plan.messages],
      added: [...this.added],
      // The calls as the model sent them (raw text, decoded again on resume): decoded arguments can be
      // nested deeper than JSON can write back.
      pending: { assistant: step.assistant, calls: kept.map(({ input: _shown, ...call }) => call) },
      sources: this.plan.citations.list(),
      files: filesToState(this.attachments),
      remindedLastStep: this.remindedLastStep,
      durationMs: 0,
    };
    return { reason: 'interrupted', interruption: { state, waiting: kept.filter((c) => c.needsApproval) } };
  }

  /**
   * Run (concurrently; results taken in call order) and show one step's tool calls, and keep the step in
   * the transcript. `decided`: a decision already made for a call (a resumed run's approvals); `done`:
   * the results of calls that ran before the run stopped to wait (shown then, not run again).
   */
  private async finishStep(step: ToolStep, prepared: PreparedCall[], decided?: (call: PlannedCall) => ToolDecision | undefined, done?: ReadonlyMap<string, ObservationOut>): Promise<void> {
    const { plan } = this;
    const todo = step.calls.flatMap((c, i) => (done?.has(c.callId) ? [] : [i]));
    const ran = await this.runCalls(todo.map((i) => step.calls[i]!), todo.map((i) => prepared[i]!), decided);
    const byId = new Map(todo.map((i, n) => [step.calls[i]!.callId, ran[n]!]));
    const results = step.calls.map((c) => done?.get(c.callId) ?? byId.get(c.callId)!);
    this.added.push(step.assistant, ...this.driver.observationMessages(results, stepNote(this.steps + 1, plan.maxSteps)));
    const images = plan.toolImages?.(plan.model.model) ? await imagesMessage(results) : undefined;
    if (images) this.added.push(images);
  }

  /** Run calls (concurrently; results taken in call order), show each result, and collect their sources and files. */
  private async runCalls(calls: PlannedCall[], prepared: PreparedCall[], decided?: (call: PlannedCall) => ToolDecision | undefined): Promise<ObservationOut[]> {
    if (calls.length === 0) return [];
    const { plan } = this;
    const pending = await this.start(calls, prepared, decided);
    for (const p of pending) p.catch(() => undefined); // awaited below in call order; never unhandled
    const results: ObservationOut[] = [];
    for (const [i, c] of calls.entries()) {
      const obs = await pending[i]!;
      for (const source of obs.sources) plan.citations.cite(source);
      if (obs.attachments) this.attachments.push(...obs.attachments);
      const { output, isError, durationMs, truncated, attachments, images } = obs;
      const result: ObservationOut = { call: c, output };
      const event: ObservationEvent = { type: 'observation', step: this.steps, callId: c.callId, tool: c.tool, output, isError, durationMs, truncated };
      // Set only when present (a field set one by one, not spread from a conditional object: this runs for every call).
      if (attachments) event.attachments = attachments;
      if (images) result.images = event.images = images;
      results.push(result);
      this.emit(event);
    }
    return results;
  }

  /** Start a step's calls: all at once, or one at a time when a person approves each. */
  private async start(calls: PlannedCall[], prepared: PreparedCall[], decided?: (call: PlannedCall) => ToolDecision | undefined): Promise<Array<Promise<Observation>>> {
    const { runner, signal, beforeTool } = this.plan;
    const step = this.steps;
    const progress = (call: PlannedCall) => (text: string) => this.emit({ type: 'progress', step, callId: call.callId, tool: call.tool, text });
    if (!beforeTool && !decided && !runner.mayAsk(prepared)) return prepared.map((p, i) => runner.execute(p, signal, this.deadline, progress(calls[i]!)));
    // A person decides one call at a time, in call order; the calls they let run still run side by side.
    const pending: Array<Promise<Observation>> = [];
    for (const [i, call] of calls.entries()) {
      const p = prepared[i]!;
      const decision: ToolDecision = ('error' in p ? undefined : decided?.(call)) ?? (await this.decide(call, p));
      if (decision.kind === 'stop') throw new StopRequested();
      const running = decision.kind === 'observe'
        ? Promise.resolve(runner.injected(decision.text))
        : runner.execute(p, signal, this.deadline, progress(call), decision.approvedBy);
      running.catch(() => undefined); // awaited by the caller in call order; never unhandled if a later decision stops the run
      pending.push(running);
    }
    return pending;
  }

  /**
   * What happens to one call: manual mode's hook decides, told when the tool itself says the call must
   * wait for a person. Such a call with nobody to ask is not run, and the model is told why.
   */
  private async decide(call: PlannedCall, p: PreparedCall): Promise<ToolDecision> {
    if ('error' in p) return { kind: 'run' };
    const approval = await this.plan.runner.approvalNeed(p);
    const { beforeTool } = this.plan;
    if (!beforeTool) {
      return approval ? { kind: 'observe', text: `The call to ${call.tool} was not run: ${approval.reason}. It needs a person's approval, and nobody can be asked here.` } : { kind: 'run' };
    }
    return beforeTool({ step: this.steps, tool: call.tool, input: p.args, callId: call.callId, ...(approval ? { approval } : {}) });
  }

  /** The last call when a limit is reached: no tools, and the model answers from what it has. */
  private async forcedAnswer(limit: Limit): Promise<Ending> {
    const why = limit === 'step-limit' ? `You have used all ${this.plan.maxSteps} steps.` : 'This run has used up its token budget.';
    const reply = await this.ask(await this.plan.allowedTools(), why);
    const answer = this.driver.finalAnswer(reply, this.plan.knownNames);
    const cutOff = cutOffOf(reply.finishReason);
    if (answer === undefined) return cutOff === 'content-filter' ? { ...filtered(), reason: limit } : { reason: limit };
    this.added.push({ role: 'assistant', content: answer });
    this.emit({ type: 'answer', text: answer, sources: this.plan.citations.list(), forced: true, ...(cutOff ? { cutOff } : {}), ...this.files() });
    return { reason: limit, answer, cutOff };
  }

  /**
   * One model call (`final`: the forced last call, with the reason it is forced). In auto mode a server
   * that rejects `tools` switches the run, and later runs on that model, to the text protocol, and the
   * same step is asked again.
   */
  private async ask(allowed: ReadonlySet<string>, final?: string): Promise<ModelReply> {
    try {
      return await this.request(allowed, final);
    } catch (error) {
      if (!(error instanceof ModelError)) throw error;
      // The server counts differently than we do: trim harder, once.
      if (error.kind === 'context-length' && this.plan.fitContext) return this.request(allowed, final, true);
      if (!(this.plan.protocol === 'auto' && this.driver.name === 'native' && error.kind === 'tools-unsupported')) throw error;
      this.driver = this.plan.drivers.text;
      this.plan.memory.remember(modelKey(this.plan.model), 'text');
      this.emit({ type: 'protocol-fallback', from: 'native', to: 'text', reason: error.message });
      return this.request(allowed, final);
    }
  }

  private async request(allowed: ReadonlySet<string>, final?: string, hard = false): Promise<ModelReply> {
    const { plan, driver } = this;
    const prompt = this.prompts.for(driver, allowed);
    let messages: ChatMessage[] = [{ role: 'system', content: prompt.system }, ...driver.prepareHistory(plan.messages), ...driver.prepareHistory(this.added)];
    if (final) messages.push(driver.finalNudge(final));
    if (Date.now() >= this.deadline) throw new RunTimeout();
    const fields = final ? driver.requestFields(prompt.offered, true) : prompt.fields;
    if (plan.fitContext) messages = plan.fitContext({ model: plan.model.model, messages, tools: fields.tools, maxTokens: plan.maxTokens }, hard);
    // Read at each call, not once at the start: other runs spend the same budget meanwhile.
    const budget = plan.callBudget;
    const refused = budget && (await budget.beforeCall());
    if (refused !== undefined) throw new BudgetRefused(refused);
    const stream = driver.textStream(final !== undefined);
    const step = this.steps + 1;
    const publish = (parts: StreamedText[]) => {
      for (const { kind, text, provisional } of parts) {
        const delta: TextDeltaEvent = { type: 'text-delta', step, kind, text };
        if (provisional) delta.provisional = true;
        this.emit(delta);
      }
    };
    const onDelta = (delta: ModelDelta) => publish(stream.push(delta));
    const reply = await plan.model.complete({ messages, ...fields, signal: plan.signal, deadline: this.deadline, maxTokens: plan.maxTokens, onDelta });
    publish(stream.end());
    addUsage(this.usage, reply.usage);
    if (budget) await budget.afterCall({ messages, tools: fields.tools, reply });
    return reply;
  }

  /** The run's files, as a field to spread: absent when there are none, so runs without files look as before. */
  private files(): { attachments?: ToolAttachment[] } {
    return this.attachments.length ? { attachments: [...this.attachments] } : {};
  }

  private failure(error: unknown): Ending {
    const stopped = { code: 'aborted', message: 'The run was stopped.' };
    if (this.plan.signal?.aborted || error instanceof StopRequested) return { reason: 'aborted', error: stopped };
    if (error instanceof BudgetRefused) return { reason: 'token-budget', error: { code: 'token-budget', message: error.message } };
    if (error instanceof RunTimeout || Date.now() >= this.deadline) {
      return { reason: 'error', error: { code: 'run-timeout', message: `The run took longer than ${Math.round(this.plan.runTimeoutMs / 1000)} s and was stopped.` } };
    }
    if (error instanceof AgentError) return { reason: 'error', error: { code: error.code, message: error.message } };
    return { reason: 'error', error: { code: 'internal', message: describeError(error) } };
  }
}

/** What the engine remembers a model server by. */
function modelKey(model: ChatModel): string {
  return model.key ?? model.model;
}
