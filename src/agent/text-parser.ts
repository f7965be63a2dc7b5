/**
 * A lenient reader for the text protocol (Thought / Action / PAUSE / Observation / Answer).
 *
 * Real models vary the format: numbered labels (`Thought 2:`), markdown bold, code fences, the ReAct
 * paper's `Search[...]`, LangChain's `Action:` + `Action Input:` or a JSON blob, chatter around it.
 * Labels only count at the start of a line, so prose that mentions "action:" mid-sentence is not an
 * action. Everything from a model-written `Observation:` on is discarded: only the engine observes.
 */

export interface ParsedAction {
  /** The tool name as the model wrote it, normalized to snake_case lower case. */
  tool: string;
  /** The raw input text (may be empty, or a JSON object the engine decodes). */
  input: string;
}

export interface ParsedReply {
  thought?: string;
  action?: ParsedAction;
  answer?: string;
}

export type Label = 'thought' | 'action' | 'input' | 'answer' | 'observation' | 'pause';

interface Section {
  label: Label | 'preamble';
  text: string;
}

const LABELS: Array<[RegExp, Label]> = [
  [/^(?:final[ _]answer|answer|final)$/i, 'answer'],
  [/^action[ _]input$/i, 'input'],
  [/^action$/i, 'action'],
  [/^(?:thought|thinking|reasoning)$/i, 'thought'],
  [/^observation$/i, 'observation'],
];

// A label at line start: optional list marker / heading / bold, a word or two, an optional step
// number, then a colon (ASCII or full-width). Bold may close before or after the colon.
const LABEL_LINE =
  /^\s*(?:[-*>]\s+|#{1,6}\s+)?[*_`]{0,3}\s*([a-z]+(?:[ _][a-z]+)?)\s*(?:\d+|\(\d+\)|#\d+)?\s*[*_`]{0,3}\s*[:：]\s*[*_`]{0,3}\s?(.*)$/i;
const PAUSE_LINE = /^\s*[*_`]{0,3}\s*PAUSE\s*[*_`]{0,3}\s*\.?\s*$/;
const FENCE_LINE = /^\s*```[\w-]*\s*$/;
const BRACKET_CALL = /^([A-Za-z][\w -]{0,40}?)\s*\[([\s\S]*)\]\s*$/;
const PAREN_CALL = /^([A-Za-z][\w-]{0,40})\s*\(([\s\S]*)\)\s*$/;
const COLON_CALL = /^([A-Za-z][\w -]{0,40}?)\s*[:：]\s*([\s\S]*)$/;
const NO_ACTION = /^(?:none|n\/?a|no action|nothing|-)\.?$/i;

/**
 * The label a line starts with, and the text after it; a PAUSE line is `pause`. Undefined for a line
 * without a label (text that continues the section before it). Used by the streaming classifier too.
 */
export function lineLabel(line: string): { label: Label; value: string } | undefined {
  if (PAUSE_LINE.test(line)) return { label: 'pause', value: '' };
  const m = LABEL_LINE.exec(line);
  const label = m ? LABELS.find(([re]) => re.test(m[1]!))?.[1] : undefined;
  return m && label ? { label, value: m[2] ?? '' } : undefined;
}

/** Split a reply into labelled sections, dropping fences, PAUSE lines and any self-written observation. */
function sections(reply: string): Section[] {
  const out: Section[] = [{ label: 'preamble', text: '' }];
  for (const line of reply.replace(/\r\n?/g, '\n').split('\n')) {
    if (FENCE_LINE.test(line)) continue;
    if (PAUSE_LINE.test(line)) {
      out.push({ label: 'pause', text: '' });
      continue;
    }
    const m = LABEL_LINE.exec(line);
    const label = m ? LABELS.find(([re]) => re.test(m[1]!))?.[1] : undefined;
    if (m && label) {
      if (label === 'observation') break;
      out.push({ label, text: m[2] ?? '' });
      continue;
    }
    const last = out[out.length - 1]!;
    last.text = last.text ? `${last.text}\n${line}` : line;
  }
  return out.map((s) => ({ label: s.label, text: cleanText(s.text) }));
}

/** Trim, drop emphasis markers left around a value, and inline trailing PAUSE. */
function cleanText(text: string): string {
  return text
    .replace(/\s*\bPAUSE\s*$/, '')
    .trim()
    .replace(/^[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}$/g, '')
    .trim();
}

function stripQuotes(text: string): string {
  const t = text.trim();
  if (t.length >= 2 && /^(["'`]).*\1$/s.test(t)) return t.slice(1, -1).trim();
  return t;
}

/** snake_case lower case, so `Wikipedia`, `current-time` and `Current Time` all match a tool. */
export function normalizeToolName(name: string): string {
  return name.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

/** Read an action line's value in any of the shapes models use. */
function parseActionValue(value: string, knownTools: ReadonlySet<string>): ParsedAction | undefined {
  let v = value.trim().replace(/^`+|`+$/g, '').trim();
  if (!v || NO_ACTION.test(v)) return undefined;
  if (v.startsWith('{')) {
    const json = parseJsonAction(v);
    if (json) return json;
  }
  const bracket = BRACKET_CALL.exec(v);
  if (bracket) return { tool: normalizeToolName(bracket[1]!), input: stripQuotes(bracket[2]!) };
  const paren = PAREN_CALL.exec(v);
  if (paren && knownTools.has(normalizeToolName(paren[1]!))) {
    return { tool: normalizeToolName(paren[1]!), input: stripQuotes(paren[2]!) };
  }
  const colon = COLON_CALL.exec(v);
  if (colon) return { tool: normalizeToolName(colon[1]!), input: stripQuotes(colon[2]!) };
  const [first, ...rest] = v.split(/\s+/);
  if (rest.length > 0 && knownTools.has(normalizeToolName(first!))) {
    return { tool: normalizeToolName(first!), input: stripQuotes(rest.join(' ')) };
  }
  v = stripQuotes(v);
  return /^[A-Za-z][\w -]{0,40}$/.test(v) ? { tool: normalizeToolName(v), input: '' } : undefined;
}

/** LangChain-style `{"action": "...", "action_input": ...}` blobs. */
function parseJsonAction(text: string): ParsedAction | undefined {
  try {
    const obj = JSON.parse(text) as Record<string, unknown>;
    const tool = obj.action ?? obj.tool ?? obj.name;
    if (typeof tool !== 'string') return undefined;
    const raw = obj.action_input ?? obj.input ?? obj.arguments ?? obj.args ?? '';
    return { tool: normalizeToolName(tool), input: typeof raw === 'string' ? raw : JSON.stringify(raw) };
  } catch {
    return undefined;
  }
}

/**
 * Parse one model reply. `knownTools` (normalized names) lets shapes such as `calculate(2+2)` or
 * `wikipedia Tokyo` be read as actions only when they name a real tool.
 */
export function parseTextReply(reply: string, knownTools: ReadonlySet<string> = new Set()): ParsedReply {
  const parts = sections(reply);
  const result: ParsedReply = {};
  const thoughts: string[] = [];
  const preamble = parts[0]!.text;

  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    if (result.action || result.answer !== undefined) break; // the first action or answer wins
    if (part.label === 'thought' && part.text) thoughts.push(part.text);
    if (part.label === 'answer' && part.text) result.answer = part.text;
    if (part.label === 'action') {
      const next = parts[i + 1];
      const input = next?.label === 'input' ? stripQuotes(next.text) : undefined;
      const action = parseActionValue(part.text, knownTools);
      if (action) result.action = input !== undefined && !action.input ? { ...action, input } : action;
    }
  }

  let bare: RegExpExecArray | null = null;
  if (!result.action && result.answer === undefined) {
    // The ReAct paper's bare `Search[Tokyo]` / `Finish[answer]` lines, with no Action label.
    bare = /^\s*([A-Z][a-z]+)\[([\s\S]*)\]\s*$/m.exec(preamble);
    if (bare) {
      if (bare[1]!.toLowerCase() === 'finish') result.answer = stripQuotes(bare[2]!);
      else result.action = { tool: normalizeToolName(bare[1]!), input: stripQuotes(bare[2]!) };
    }
  }
  if (result.action?.tool === 'finish') {
    result.answer = result.action.input;
    delete result.action;
  }
  // Chatter before the first label is the model thinking aloud: show it as the thought.
  const thought = thoughts.join('\n').trim() || (bare ? preamble.replace(bare[0], '').trim() : preamble);
  if (thought) result.thought = thought;
  return result;
}
