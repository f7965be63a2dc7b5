/**
 * Approvals from the console: the calls that wait for a person in a server, and Approve or Deny on one,
 * through the turn pipeline's own `decide` (so the tool runs once or not at all, the Approve and Deny
 * buttons in Discord go, and the run resumes in the bot's process). Kept in this module alone, so it is
 * easy to point at a reworked pipeline. A console apart from the bot (`npm run console`) lists the calls
 * but cannot decide them: the run resumes in the process that holds the server.
 */
import type { Client } from 'discord.js';
import type { ApprovalDecision } from '../discord/turn/waiting-turns.js';
import type { Turns } from '../discord/turn/pipeline.js';
import type { AuditEntry, WaitingTurnStore } from '../state/index.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** One call waiting for a decision, as the console lists it. */
export interface WaitingCall {
  turnId: string;
  index: number;
  tool: string;
  /** The call as Discord shows it (its arguments in one line of code: data, never markup). */
  described: string;
  /** Where its run posts (the thread). */
  channelId: string;
  createdAt: number;
  expiresAt: number;
  /** Only these people may decide it (a call the tool held back for its owner). */
  only?: ReadonlyArray<{ id: string; name: string }>;
}

/** How a decision went: done, or refused with the sentence (and who decided first, and when, when known). */
export type DecideResult =
  | { ok: true }
  | { ok: false; status: 403 | 404 | 409; message: string; decided?: { by: string; at: number; approved: boolean } };

export interface ConsoleApprovals {
  /** Whether this console can decide (it runs in the bot's process). */
  readonly canDecide: boolean;
  waiting(guildId: string): Promise<WaitingCall[]>;
  /** Decide call `index` of turn `turnId` in `guildId`; `described` is the call as the page showed it, for naming who decided first. */
  decide(guildId: string, turnId: string, index: number, decision: ApprovalDecision, described: string): Promise<DecideResult>;
}

export interface ApprovalDeps {
  store: WaitingTurnStore;
  /** The pipeline and the bot's client, in the bot's process; absent in a console of its own. */
  live?: { turns: Pick<Turns, 'decide'>; client: () => Client<true> };
  /** The newest approval decisions of a guild (the audit log), for naming who decided a call whose run has ended since. */
  decisions(guildId: string): Promise<AuditEntry[]>;
}

export function createConsoleApprovals(deps: ApprovalDeps): ConsoleApprovals {
  /** Who decided a call first: from its record while the run waits or resumes, else from the audit log. */
  async function firstDecision(guildId: string, turnId: string, index: number, described: string): Promise<{ by: string; at: number; approved: boolean } | undefined> {
    const call = (await deps.store.get(turnId))?.calls[index];
    if (call?.decision) return { by: call.decision.by.name, at: call.decision.at, approved: call.decision.approved };
    const entry = (await deps.decisions(guildId)).find((e) => e.detail === `approved ${described.slice(0, TEXT_CAPS.echo)}` || e.detail === `denied ${described.slice(0, TEXT_CAPS.echo)}`);
    return entry && { by: entry.actorName ?? entry.actorId, at: entry.at, approved: entry.action.endsWith('approved') };
  }

  return {
    canDecide: deps.live !== undefined,
    async waiting(guildId) {
      const calls: WaitingCall[] = [];
      for (const entry of await deps.store.list()) {
        if (entry.guildId !== guildId) continue;
        const record = await deps.store.get(entry.id);
        if (!record || record.status !== 'waiting') continue;
        // The calls of a step are asked about one at a time: the first undecided one is the one waiting.
        const index = record.calls.findIndex((c) => !c.decision);
        const call = record.calls[index];
        if (!call) continue;
        calls.push({ turnId: record.id, index, tool: call.tool, described: call.described, channelId: record.channelId, createdAt: record.createdAt, expiresAt: record.expiresAt, ...(call.approvers?.length ? { only: call.approvers } : {}) });
      }
      return calls.sort((a, b) => a.createdAt - b.createdAt);
    },
    async decide(guildId, turnId, index, decision, described) {
      if (!deps.live) return { ok: false, status: 409, message: 'This console runs apart from the bot, so it cannot resume runs: decide this call with its buttons in Discord.' };
      const record = /^[A-Za-z0-9_-]{1,64}$/.test(turnId) ? await deps.store.get(turnId) : undefined;
      const call = record?.calls[index];
      if (record && record.guildId !== guildId) return { ok: false, status: 404, message: 'There is no such waiting call in this server.' };
      if (call?.approvers?.length && !call.approvers.some((a) => a.id === decision.by.id)) {
        return { ok: false, status: 403, message: `Only ${call.approvers.map((a) => a.name).join(' or ')} can approve or deny this call: it is theirs (the tool held it back for its owner).` };
      }
      const pressed = record && call ? await deps.live.turns.decide(deps.live.client(), turnId, index, decision) : { ok: false as const, message: 'This call was already decided, or its run has ended.' };
      if (pressed.ok) return { ok: true };
      const decided = await firstDecision(guildId, turnId, index, call?.described ?? described);
      return { ok: false, status: 409, message: pressed.message, ...(decided ? { decided } : {}) };
    },
  };
}
