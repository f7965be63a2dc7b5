/**
 * The line that announces a question where everyone sees it (the /ask reply, the first message of an
 * Ask-about thread): who asked and what, cut to leave room for what follows, never leaving a code block
 * open to swallow it.
 */
import { escapeDisplayName } from '../../agent/clean-text.js';
import { closeOpenFence, fitMessage, graphemeBoundary } from '../posting/split-message.js';

/** `**Alice** asked: …` (or `asked about this message`), the question cut at 1,500 characters. */
export function headline(name: string, question: string, verb = 'asked'): string {
  const q = closeOpenFence(question.length > 1500 ? `${question.slice(0, graphemeBoundary(question, 1499))}…` : question);
  return fitMessage(`**${escapeDisplayName(name)}** ${verb}: ${q}`);
}
