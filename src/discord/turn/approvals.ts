/**
 * Approval before risky tools. A call to a tool a moderator marked `ask` (`/tools approval`) waits:
 * the thread shows the call and its input with Approve and Deny buttons, which the run's starter or a
 * moderator may press (anyone else is told who may). Deny, or no decision within APPROVAL_TIMEOUT_MS,
 * gives the model an observation saying the call was not approved, and the run goes on; Stop still
 * ends the run while it waits. Every decision is audited. The engine's manual-mode hook (`beforeTool`)
 * asks, in call order, so parallel calls wait one after another. The buttons are in approval-buttons.ts.
 */
import type { Client, Message } from 'discord.js';
import { escapeDisplayName } from '../../agent/clean-text.js';
import { describeAction } from '../../agent/describe.js';
import type { BeforeTool, ToolDecision } from '../../agent/engine.js';
import { formatMs } from '../../duration.js';
import type { Logger } from '../../logger.js';
import type { ApprovalMode, ChangeRecord } from '../../policy/index.js';
import { logChannelLine } from '../text/audit-text.js';
import { approvalButtons, type ApprovalDecision } from '../buttons/approval.js';
import { postToLogChannel, recordAudit, type AuditDeps } from '../rules/audit-trail.js';
import type { TurnTarget } from '../posting/target.js';

interface Pending {
  starterId: string;
  /** Who alone may decide (a call the tool says only its owner may approve); absent: the starter or a moderator. */
  approvers?: ReadonlyArray<{ id: string; name: string }>;
  decide(decision: ApprovalDecision): void;
}

/** Calls waiting for a person, by `runId:callId`: the buttons find their call here. */
export class ApprovalRegistry {
  private readonly pending = new Map<string, Pending>();

  wait(key: string, starterId: string, approvers?: Pending['approvers']): { decision: Promise<ApprovalDecision>; cancel(): void } {
    let decide!: (d: ApprovalDecision) => void;
    const decision = new Promise<ApprovalDecision>((resolve) => (decide = resolve));
    this.pending.set(key, { starterId, approvers, decide });
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

  /** Who alone may decide the call waiting under `key`, when the tool named them. */
  approversOf(key: string): Pending['approvers'] {
    return this.pending.get(key)?.approvers;
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
  /** Whether calls to `tool` wait for approval here (read from the guild's settings at each call; `required`: the tool says this call must). */
  modeOf(tool: string, call?: { required?: boolean }): Promise<ApprovalMode>;
  /** Before the request is posted: the step log writes out what it has, and continues below it. */
  beforePosting(): Promise<void>;
  audit: AuditDeps & { logger: Logger; client: Client };
}

/** The `beforeTool` hook for one run. */
export function approvalGate(deps: ApprovalGateDeps): BeforeTool {
  return async (call) => {
    if ((await deps.modeOf(call.tool, call.approval ? { required: true } : undefined)) === 'auto') return { kind: 'run' };
    const key = `${deps.runId}:${call.callId}`;
    const described = describeAction(call.tool, call.input);
    const shown = `\`${described.length > 300 ? `${described.slice(0, 299)}…` : described}\``.replace(/`{3,}/g, '`');
    await deps.beforePosting();
    // A call the tool itself held back (a note nobody asked for) is decided by the people it names alone.
    const approvers = call.approval?.approvers?.length ? call.approval.approvers : undefined;
    const { decision, cancel } = deps.registry.wait(key, deps.starterId, approvers);
    const reason = call.approval ? `\n-# Why: ${escapeDisplayName(call.approval.reason, 200)}.` : '';
    const who = approvers ? `Only ${approvers.map((a) => `**${escapeDisplayName(a.name)}**`).join(' or ')} can decide.` : 'The person who asked, or a moderator, can decide.';
    let request: Message;
    try {
      request = await deps.target.send({
        content: `🔐 **Approval needed** before I run ${shown}${reason}\n-# ${who} Waiting up to ${formatMs(deps.timeoutMs)}.`,
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
    if (outcome !== 'timeout' && outcome.approved) return { kind: 'run', approvedBy: outcome.by.id };
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
    ? { actorId: deps.audit.client.user?.id ?? deps.starterId, actorName: 'threadwise', action: 'tools.approval.timeout', detail: `did not run \`${described.slice(0, 200)}\`: nobody approved it in time` }
    : { actorId: outcome.by.id, actorName: outcome.by.name, action: outcome.approved ? 'tools.approval.approved' : 'tools.approval.denied', detail: `${outcome.approved ? 'approved' : 'denied'} \`${described.slice(0, 200)}\`` };
  try {
    const { logChannelId } = await recordAudit(deps.audit, deps.guildId, record);
    await postToLogChannel(deps.audit.logger, deps.audit.client, deps.guildId, logChannelId, logChannelLine(record));
  } catch (error) {
    deps.audit.logger.error({ err: error, runId: deps.runId }, 'could not audit an approval decision');
  }
}
