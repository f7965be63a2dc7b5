/**
 * A lenient reader for the text protocol (Thought / Action / PAUSE / Observation / Answer).
 *
 * Real models vary the format: numbered labels (`Thought 2:`), markdown bold, code fences, the ReAct
 * paper's `Search[...]`, LangChain's `Action:` + `Action Input:` or a JSON blob (with or without a
 * label), smolagents' `tool_name` blobs, chatter around it. Labels only count at the start of a line,
 * so prose that mentions "action:" mid-sentence is not an action. Everything from a model-written
 * `Observation:` on is discarded (only the engine observes), and so is a `Question:` the model
 * invents after its answer.
 */
import { balanced, bracketCall, normalizeToolName, readActionValue, readBlob, unquote, type ActionRead, type ParsedAction } from './text-action.js';

export { normalizeToolName, type ParsedAction } from './text-action.js';

export interface ParsedReply {
  thought?: string;
  action?: ParsedAction;
  answer?: string;
  /**
   * The `Action:` line as written, when the model tried to call something that cannot be read as a
   * tool call (`Action: lookup(x)` for a tool that does not exist, a sentence with an Action Input):
   * the format reminder can then say what was wrong instead of "no Action line".
   */
  unknownAction?: string;
}

export type Label = 'thought' | 'action' | 'input' | 'answer' | 'observation' | 'question' | 'pause';

interface Section {
  label: Label | 'preamble';
  text: string;
}

const LABELS: Array<[RegExp, Label]> = [
  [/^(?:final[ _]?answer|answer|final|ai)$/i, 'answer'],
  [/^action[ _]input$/i, 'input'],
  [/^action$/i, 'action'],
  [/^(?:thought|thinking|reasoning)$/i, 'thought'],
  [/^observation$/i, 'observation'],
  [/^question$/i, 'question'],
];

// A label at line start: optional list marker / heading / bold, a word or two, an optional step
// number, then a colon (ASCII or full-width). Bold may close before or after the colon.
const LABEL_LINE =
  /^\s*(?:[-*>]\s+|#{1,6}\s+)?([*_`]{0,3})\s*([a-z]+(?:[ _][a-z]+)?)\s*(?:\d+|\(\d+\)|#\d+)?\s*([*_`]{0,3})\s*[:：]\s*([*_`]{0,3})\s?(.*)$/i;
// PAUSE on a line of its own, in any case and any emphasis (`pause`, `**PAUSE**`, `__Pause__`).
const PAUSE_LINE = /^\s*[*_`]{0,3}\s*PAUSE\s*[*_`]{0,3}\s*\.?\s*$/i;
// PAUSE written at the end of the action line; upper case only, so prose ending in "pause" keeps it.
const TRAILING_PAUSE = /\s*[*_]{0,3}\bPAUSE\b[*_]{0,3}\s*$/;
// What a stop at PAUSE leaves of `**PAUSE**` or `__PAUSE__`: the opening markers, alone at the end of
// the reply or after the action's value. An opening emphasis with nothing after it means nothing.
const STOP_FRAGMENT = /(?:\n|[ \t])[ \t]*(?:\*{1,3}|_{1,3})[ \t]*$/;
const FENCE_LINE = /^\s*`{2,}[\w-]*\s*$/;
// Only the label's own spelling: "fer yer final answer: free text" in prose is not an answer.
const INLINE_FINAL = /\b(?:Final Answer|FINAL ANSWER)\s*[:：]\s*/;
// A stop sequence cut mid-word (`\nObserv`) leaves the start of the label at the very end.
const PARTIAL_OBSERVATION = /\n[ \t]*Obs(?:e(?:r(?:v(?:a(?:t(?:i(?:on?)?)?)?)?)?)?)?[ \t]*$/i;
// The ReAct paper's verbs, read as calls even with prose after them on the line.
const REACT_VERBS = new Set(['search', 'lookup', 'finish', 'click']);

/**
 * The label a line starts with, and the text after it; a PAUSE line is `pause`. Undefined for a line
 * without a label (text that continues the section before it). Used by the streaming classifier too.
 */
export function lineLabel(line: string): { label: Label; value: string } | undefined {
  if (PAUSE_LINE.test(line)) return { label: 'pause', value: '' };
  const m = LABEL_LINE.exec(line);
  const label = m ? LABELS.find(([re]) => re.test(m[2]!))?.[1] : undefined;
  return m && label ? { label, value: labelValue(m) } : undefined;
}

/** Split a reply into labelled sections, dropping fences, PAUSE lines and any self-written observation. */
function sections(reply: string): Section[] {
  const out: Section[] = [{ label: 'preamble', text: '' }];
  const append = (text: string) => {
    const last = out[out.length - 1]!;
    last.text = last.text ? `${last.text}\n${text}` : text;
  };
  const whole = reply.replace(/\r\n?/g, '\n').replace(PARTIAL_OBSERVATION, '').replace(STOP_FRAGMENT, '');
  for (const line of whole.split('\n')) {
    if (FENCE_LINE.test(line)) continue;
    if (PAUSE_LINE.test(line)) {
      out.push({ label: 'pause', text: '' });
      continue;
    }
    const m = LABEL_LINE.exec(line);
    const label = m ? LABELS.find(([re]) => re.test(m[2]!))?.[1] : undefined;
    if (m && label === 'observation') break;
    const text = m && label ? labelValue(m) : line;
    if (m && label) out.push({ label, text: '' });
    // "Thought: I now know the final answer. Final Answer: 42" on one line.
    const inline = out[out.length - 1]!.label === 'thought' || out[out.length - 1]!.label === 'preamble' ? INLINE_FINAL.exec(text) : null;
    if (inline) {
      append(text.slice(0, inline.index));
      out.push({ label: 'answer', text: text.slice(inline.index + inline[0].length) });
      continue;
    }
    append(text);
  }
  return out.map((s) => ({ label: s.label, text: tidyLabelValue(s.text) }));
}

/** The value after a label. Markers right after the colon close a bold label (`**Answer:** x`) or open the value (`Answer: **Paris** is…`). */
function labelValue(m: RegExpExecArray): string {
  const [, open, , closedBefore, after, value] = m;
  return open && !closedBefore ? value! : after! + value!;
}

/** Trim, drop emphasis markers left unbalanced around a value (`python_repl_ast**`), and inline trailing PAUSE. */
function tidyLabelValue(text: string): string {
  let t = text.replace(TRAILING_PAUSE, '').trim();
  const lead = /^[*_]{1,3}(?=\S)/.exec(t)?.[0];
  if (lead && !t.slice(lead.length).includes(lead)) t = t.slice(lead.length);
  const trail = /(?<=\S)[*_]{1,3}$/.exec(t)?.[0];
  if (trail && !t.slice(0, -trail.length).includes(trail)) t = t.slice(0, -trail.length);
  return t.trim();
}

function apply(result: ParsedReply, read: ActionRead, input?: string): void {
  if (!read) return;
  if ('answer' in read) result.answer = read.answer;
  else if ('unknown' in read) result.unknownAction = read.unknown;
  else result.action = input !== undefined && !read.action.input ? { ...read.action, input } : read.action;
}

/** An Action Input: a JSON object or list ends where it closes, whatever the model wrote after it. */
function inputText(text: string): string {
  const t = unquote(text);
  if (t.startsWith('{') || t.startsWith('[')) return balanced(t, 0) ?? t;
  return t;
}

/** A bare `search[Tokyo]` line (no Action label): the ReAct paper's format, and WebShop's `click[Buy Now]`. */
function bareCall(preamble: string, knownTools: ReadonlySet<string>): { line: string; read: ActionRead } | undefined {
  for (const line of preamble.split('\n')) {
    const call = bracketCall(line.trim());
    if (!call) continue;
    const name = normalizeToolName(call.name);
    const known = knownTools.has(name) || REACT_VERBS.has(name);
    if (!known && (call.rest || /\s/.test(call.name))) continue;
    return { line, read: name === 'finish' ? { answer: call.input } : { action: { tool: name, input: call.input } } };
  }
  return undefined;
}

/**
 * Parse one model reply. `knownTools` (normalized names) lets shapes such as `calculate(2+2)` or
 * `wikipedia Tokyo` be read as actions only when they name a real tool.
 */
export function parseTextReply(reply: string, knownTools: ReadonlySet<string> = new Set()): ParsedReply {
  const parts = sections(reply);
  const result: ParsedReply = {};
  const thoughts: string[] = [];
  let preamble = parts[0]!.text;

  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    if (result.action || result.answer !== undefined || result.unknownAction) break; // the first action or answer wins
    if (part.label === 'thought' && part.text) thoughts.push(part.text);
    if (part.label === 'answer' && part.text) result.answer = part.text;
    if (part.label === 'action') {
      const next = parts[i + 1];
      const input = next?.label === 'input' ? inputText(next.text) : undefined;
      apply(result, readActionValue(part.text, knownTools, input !== undefined), input);
    }
  }

  if (!result.action && result.answer === undefined && !result.unknownAction) {
    // No label: a bare ReAct call, or a JSON blob on its own (LangChain's chat agents, smolagents).
    const bare = bareCall(preamble, knownTools);
    const blob = bare ? undefined : readBlob(reply);
    if (bare) {
      apply(result, bare.read);
      preamble = preamble.replace(bare.line, '').trim();
    } else if (blob && !('unknown' in blob)) {
      apply(result, blob);
      const before = reply.slice(0, reply.indexOf('{')).replace(/(?:`{2,}|\bjson)\s*$/i, '');
      preamble = sections(before)[0]!.text;
    }
  }
  if (result.action && (result.action.tool === 'finish' || result.action.tool === 'final_answer')) {
    result.answer = result.action.input;
    delete result.action;
  }
  // Chatter before the first label is the model thinking aloud: show it as the thought.
  const thought = thoughts.join('\n').trim() || preamble;
  if (thought) result.thought = thought;
  return result;
}
