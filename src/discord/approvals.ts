/**
 * Approval before risky tools. A call to a tool a moderator marked `ask` (`/tools approval`) waits:
 * the thread shows the call and its input with Approve and Deny buttons, which the run's starter or a
 * moderator may press (anyone else is told who may). Deny, or no decision within APPROVAL_TIMEOUT_MS,
 * gives the model an observation saying the call was not approved, and the run goes on; Stop still
 * ends the run while it waits. Every decision is audited. The engine's manual-mode hook (`beforeTool`)
 * asks, in call order, so parallel calls wait one after another. The buttons are in approval-buttons.ts.
 */
import type { Client, Message } from 'discord.js';
import { escapeDisplayName } from '../agent/clean-text.js';
import { describeAction } from '../agent/describe.js';
import { inlineCode } from './format-steps.js';
import type { BeforeTool, ToolDecision } from '../agent/engine.js';
import { formatMs } from '../duration.js';
import type { Logger } from '../logger.js';
import type { ApprovalMode, ChangeRecord } from '../policy/index.js';
import { logChannelLine } from './audit-text.js';
import { approvalButtons, type ApprovalDecision } from './approval-buttons.js';
import { postToLogChannel, recordAudit, type AuditDeps } from './audit-trail.js';
import type { TurnTarget } from './turn-target.js';

interface Pending {
  starterId: string;
  decide(decision: ApprovalDecision): void;
}

/** Calls waiting for a person, by `runId:callId`: the buttons find their call here. */
export class ApprovalRegistry {
  private readonly pending = new Map<string, Pending>();

  wait(key: string, starterId: string): { decision: Promise<ApprovalDecision>; cancel(): void } {
    let decide!: (d: ApprovalDecision) => void;
    const decision = new Promise<ApprovalDecision>((resolve) => (decide = resolve));
    this.pending.set(key, { starterId, decide });
    return { decision, cancel: () => this.pending.delete(key) };
  }

  /** Settle a waiting call; false when it is no longer waiting. */
  settle(key: string, decision: ApprovalDecision): boolean {
    const waiting = this.pending.get(key);
    if (!waiting) return false;
    this.pending.delete(key);
    waiting.decide(decision);
    return true;
  }

  starterOf(key: string): string | undefined {
    return this.pending.get(key)?.starterId;
  }
}

/** What a run's approval gate needs. */
export interface ApprovalGateDeps {
  registry: ApprovalRegistry;
  target: TurnTarget;
  runId: string;
  starterId: string;
  guildId: string | null;
  signal: AbortSignal;
  timeoutMs: number;
  /** Whether calls to `tool` wait for approval here (read from the guild's settings at each call). */
  modeOf(tool: string): Promise<ApprovalMode>;
  /** Before the request is posted: the step log writes out what it has, and continues below it. */
  beforePosting(): Promise<void>;
  audit: AuditDeps & { logger: Logger; client: Client };
}

/** The `beforeTool` hook for one run. */
export function approvalGate(deps: ApprovalGateDeps): BeforeTool {
  return async (call) => {
    if ((await deps.modeOf(call.tool)) === 'auto') return { kind: 'run' };
    const key = `${deps.runId}:${call.callId}`;
    const described = describeAction(call.tool, call.input);
    const shown = inlineCode(described, 300);
    await deps.beforePosting();
    const { decision, cancel } = deps.registry.wait(key, deps.starterId);
    let request: Message;
    try {
      request = await deps.target.send({
        content: `🔐 **Approval needed** before I run ${shown}\n-# The person who asked, or a moderator, can decide. Waiting up to ${formatMs(deps.timeoutMs)}.`,
        components: [approvalButtons.build(key)],
      });
    } catch (error) {
      cancel();
      deps.audit.logger.warn({ err: error, runId: deps.runId }, 'could not post an approval request; the call is not run');
      return { kind: 'observe', text: `The call ${described} was not run: it needs a person's approval, and the request for it could not be posted.` };
    }
    const outcome = await waitFor(decision, deps.signal, deps.timeoutMs);
    cancel();
    const verdict = outcome === 'stopped' ? '⏹️ Not run: the run was stopped.' : outcome === 'timeout'
      ? `⌛ Not run: no decision within ${formatMs(deps.timeoutMs)}.`
      : `${outcome.approved ? '✅ Approved' : '⛔ Denied'} by **${escapeDisplayName(outcome.by.name)}**.`;
    await deps.target.edit(request, { content: `🔐 ${shown}\n${verdict}`, components: [] }).catch(() => undefined);
    if (outcome === 'stopped') return { kind: 'stop' };
    await audited(deps, outcome, described);
    if (outcome !== 'timeout' && outcome.approved) return { kind: 'run' };
    const why = outcome === 'timeout' ? `nobody approved it within ${formatMs(deps.timeoutMs)}` : 'a person denied it';
    return { kind: 'observe', text: `The call ${described} was not run: ${why}. Carry on without it, or explain what you wanted it for.` } satisfies ToolDecision;
  };
}

function waitFor(decision: Promise<ApprovalDecision>, signal: AbortSignal, timeoutMs: number): Promise<ApprovalDecision | 'timeout' | 'stopped'> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve('stopped');
    const done = (value: ApprovalDecision | 'timeout' | 'stopped') => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done('stopped');
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    void decision.then(done);
  });
}

/** The decision in the guild's audit log and log channel. */
async function audited(deps: ApprovalGateDeps, outcome: ApprovalDecision | 'timeout', described: string): Promise<void> {
  if (!deps.guildId) return;
  const record: ChangeRecord = outcome === 'timeout'
    ? { actorId: deps.audit.client.user?.id ?? deps.starterId, actorName: 'threadwise', action: 'tools.approval.timeout', detail: `did not run ${inlineCode(described, 200)}: nobody approved it in time` }
    : { actorId: outcome.by.id, actorName: outcome.by.name, action: outcome.approved ? 'tools.approval.approved' : 'tools.approval.denied', detail: `${outcome.approved ? 'approved' : 'denied'} ${inlineCode(described, 200)}` };
  try {
    const { logChannelId } = await recordAudit(deps.audit, deps.guildId, record);
    await postToLogChannel(deps.audit.logger, deps.audit.client, deps.guildId, logChannelId, logChannelLine(record));
  } catch (error) {
    deps.audit.logger.error({ err: error, runId: deps.runId }, 'could not audit an approval decision');
  }
}
