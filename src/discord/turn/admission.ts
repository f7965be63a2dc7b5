/**
 * Whether a person's message may start a run, decided before any model call: the text must say
 * something and fit `QUESTION_MAX_CHARS` (checked here, whatever the Discord client allowed), direct
 * messages are answered only when `ALLOW_DMS` is on, and the member's and server's usage limits must
 * have room. The first checks need no storage and come first, once (`checkInput`, before the origin
 * acknowledges); the limits come with the turn (`decide`). A refusal comes back as the sentence to show
 * the person; an admission as the run's usage ticket.
 */
import { cleanText, isBlankQuestion } from '../../agent/clean-text.js';
import type { Logger } from '../../logger.js';
import type { RunScope } from '../../policy/index.js';
import { refusalText } from '../text/usage-text.js';
import type { CheckedText } from './record.js';
import type { AdmitOptions, EffectiveLimits, LimitName, UsageLimiter, UsageTicket } from '../../state/index.js';

export interface AdmissionRules {
  limiter: UsageLimiter;
  allowDms: boolean;
  questionMaxChars: number;
  logger: Logger;
}

/** Admitted (the usage ticket), or refused with the sentence to show and, for a usage limit, which. */
export type Decision = { ok: true; ticket: UsageTicket } | { ok: false; message: string; limit?: LimitName };

/**
 * The checks that need no storage (the text, DMs): instant, so a command can refuse privately before it
 * acknowledges. The cleaned text, or the sentence to show.
 */
export function checkInput(rules: Pick<AdmissionRules, 'allowDms' | 'questionMaxChars'>, scope: RunScope, rawText: string): { ok: true; text: CheckedText } | { ok: false; message: string } {
  const text = cleanText(rawText).trim() as CheckedText;
  if (isBlankQuestion(text)) return { ok: false, message: 'Your message has nothing I can read (it is empty, or only invisible or control characters). Write your question in words.' };
  if ([...text].length > rules.questionMaxChars) {
    return { ok: false, message: `Your question is ${[...text].length.toLocaleString('en-US')} characters long; I take at most ${rules.questionMaxChars.toLocaleString('en-US')}. Shorten it, or split it into a few questions.` };
  }
  if (!scope.guildId && !rules.allowDms) {
    return { ok: false, message: 'I answer questions in servers, not in direct messages. Use `/ask` in a server we share.' };
  }
  return { ok: true, text };
}

/**
 * The usage limits, for input already checked (`checkInput`, whose text type says so). `limits` is the
 * member's limits where they ask (the rules object's `at(scope).limits`, so the turn's one read of the
 * guild's settings serves it); it throws when they cannot be read, and the request is refused.
 */
export async function decide(rules: AdmissionRules, scope: RunScope, limits: () => Promise<EffectiveLimits>, options?: AdmitOptions): Promise<Decision> {
  let admission;
  try {
    admission = await rules.limiter.admit({ guildId: scope.guildId, channelId: scope.channelId, userId: scope.userId }, await limits(), options);
  } catch (error) {
    // Closed, not open: without the counters nothing would stop one member spending the owner's account.
    rules.logger.error({ err: error, guildId: scope.guildId, userId: scope.userId }, 'could not check usage limits; the request was refused');
    return { ok: false, message: 'I cannot check usage limits right now (my storage is not answering), so I did not start anything. Try again in a moment.' };
  }
  if (!admission.ok) return { ok: false, message: refusalText(admission), limit: admission.limit };
  return { ok: true, ticket: admission.ticket };
}
