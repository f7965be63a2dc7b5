/**
 * Showing a member, in the thread, what a memory tool stored for them: a line "Remembered for Alice: …"
 * with a Forget button only Alice may press. Posted below what the step log has so far (which then
 * continues underneath), without mentions; a post that fails is logged and the entry stays stored.
 */
import { escapeDisplayName } from '../../agent/clean-text.js';
import type { ToolNotice } from '../../agent/tool.js';
import type { Logger } from '../../logger.js';
import type { TurnTarget } from '../posting/target.js';
import { forgetRow } from '../posting/run-components.js';

export interface NoticeDeps {
  target: TurnTarget;
  /** The people the turn answers, to name them. */
  names: ReadonlyMap<string, string>;
  /** Before a line is posted: the step log writes out what it has and continues below it. */
  beforePosting(): Promise<void>;
  logger: Pick<Logger, 'warn'>;
}

/** The line a stored entry gets. */
export function rememberedLine(name: string, text: string): string {
  return `-# 🧠 Remembered for **${escapeDisplayName(name)}**: ${escapeDisplayName(text, 300)}`;
}

/** The `notify` of a turn's run: each notice of a stored entry becomes its line with its Forget button. */
export function memoryNotifier(deps: NoticeDeps): (notice: ToolNotice) => Promise<void> {
  return async (notice) => {
    if (notice.kind !== 'remembered') return;
    const name = deps.names.get(notice.personId) ?? 'this member';
    try {
      await deps.beforePosting();
      await deps.target.send({ content: rememberedLine(name, notice.text), components: notice.ref ? [forgetRow(notice.personId, notice.ref)] : [] });
    } catch (error) {
      deps.logger.warn({ err: error, personId: notice.personId }, 'could not show a remembered note in the thread (it is stored)');
    }
  };
}
