/**
 * One case on one model: the question through the engine as a thread's turn goes (the bot's
 * instructions with the case's persona, the tools allowed), then its checks. A run that the model
 * answered, or failed to answer (the step limit, the content filter), is graded `pass` or `fail`; a run
 * the model server or the runner broke is an `error`, which is no verdict on the model.
 */
import type { Engine } from '../agent/engine.js';
import type { ChatMessage, ChatModel, Usage } from '../agent/types.js';
import { describeError } from '../errors.js';
import { failedChecks } from './checks.js';
import type { Judge } from './judge.js';
import type { EvalCase } from './suite.js';

export type CaseStatus = 'pass' | 'fail' | 'error';

/** What one run of one case came to. */
export interface CaseResult {
  case: EvalCase;
  model: string;
  /** Which repeat of the case this was (0-based). */
  repeat: number;
  status: CaseStatus;
  /** Why it failed or errored; empty when it passed. */
  reason: string;
  answer: string;
  tools: string[];
  steps: number;
  usage: Usage;
  latencyMs: number;
  /** The judge's reason, when the case has a judge check and it answered. */
  judged?: { pass: boolean; reason: string };
}

/** What a case run needs: the engine, the model, and how a case's settings become a run's. */
export interface CaseRunner {
  engine: Engine;
  judge?: Judge;
  /** The system instructions for a persona (the bot's own, with the persona below them). */
  instructions: (persona: string | undefined) => string;
  /** Tools offered when neither the case nor --tools names any (default: every tool). */
  tools?: readonly string[];
  persona?: string;
  clock?: () => number;
  /** Told of every judge call's tokens (they are not the model's). */
  onJudgeUsage?: (usage: Usage) => void;
}

/** Run `item` on `model` and grade it. Never throws: a failure becomes an `error` result. */
export async function runCase(runner: CaseRunner, item: EvalCase, model: ChatModel, repeat: number, signal?: AbortSignal): Promise<CaseResult> {
  const clock = runner.clock ?? (() => performance.now());
  const base = { case: item, model: model.model, repeat, answer: '', tools: [] as string[], steps: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, latencyMs: 0 };
  const started = clock();
  try {
    const offered = item.tools ?? runner.tools;
    const allowed = offered ? new Set(offered) : undefined;
    const messages: ChatMessage[] = [...(item.history ?? []), { role: 'user', content: item.question }];
    const run = runner.engine.run({
      messages,
      model,
      instructions: runner.instructions(item.persona ?? runner.persona),
      allowedTools: allowed ? () => allowed : undefined,
      signal,
    });
    const tools: string[] = [];
    for await (const event of run) if (event.type === 'action') tools.push(event.tool);
    const result = await run.result;
    const done = { ...base, tools, steps: result.steps, usage: result.usage, latencyMs: clock() - started, answer: result.answer ?? '' };
    if (result.answer === undefined) {
      // No answer: the model's doing when it ran out of steps or its provider filtered it; else the run broke.
      const modelsFault = result.reason === 'step-limit' || result.reason === 'token-budget' || result.error?.code === 'content-filter';
      const why = result.error?.message ?? `the run ended without an answer (${result.reason})`;
      return { ...done, status: modelsFault ? 'fail' : 'error', reason: modelsFault ? `no answer: ${why}` : why };
    }
    const reasons = failedChecks(item.expect, { answer: result.answer, tools, steps: result.steps });
    let judged: CaseResult['judged'];
    if (item.expect.judge !== undefined) {
      if (!runner.judge) return { ...done, status: 'error', reason: 'the case has a judge check but there is no judge model (EVAL_JUDGE_MODEL)' };
      // A judge that fails says nothing about the model: the case is an error, with what the run did kept.
      const verdict = await runner.judge.grade({ question: item.question, answer: result.answer, rubric: item.expect.judge, signal }).catch((error: unknown) => describeError(error));
      if (typeof verdict === 'string') return { ...done, status: 'error', reason: verdict };
      runner.onJudgeUsage?.(verdict.usage);
      judged = { pass: verdict.pass, reason: verdict.reason };
      if (!verdict.pass) reasons.push(`the judge failed it${verdict.reason ? `: ${verdict.reason}` : ''}`);
    }
    return { ...done, status: reasons.length ? 'fail' : 'pass', reason: reasons.join('; '), judged };
  } catch (error) {
    return { ...base, latencyMs: clock() - started, status: 'error', reason: describeError(error) };
  }
}
