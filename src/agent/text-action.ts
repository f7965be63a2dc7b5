/**
 * Reading what a model wrote to call a tool in the text protocol: `tool: input`, `tool[input]`,
 * `tool(input)`, LangChain's JSON blob, smolagents' `{"tool_name", "tool_arguments"}`, an
 * `<tool_name>` block. A blob whose tool is "Final Answer" is an answer, not a call.
 */

export interface ParsedAction {
  /** The tool name as the model wrote it, normalized to snake_case lower case. */
  tool: string;
  /** The raw input text (may be empty, or a JSON object the engine decodes). */
  input: string;
}

/** What an action line or blob turned out to be. `unknown`: an attempt to call that names no tool we can read. */
export type ActionRead = { action: ParsedAction } | { answer: string } | { unknown: string } | undefined;

const NO_ACTION = /^(?:none|n\/?a|no action|nothing|-)\.?$/i;
const FINAL = /^(?:final[ _]?answer|finish)$/i;
const PAREN_CALL = /^([A-Za-z][\w-]{0,40})\s*\(([\s\S]*)\)\s*$/;
const COLON_CALL = /^([A-Za-z][\w -]{0,40}?)\s*[:：]\s*([\s\S]*)$/;
// A name a tool could have: a few words, colons allowed (Zapier's `Gmail: Find Email`), not a sentence.
const TOOL_NAME = /^[A-Za-z][\w .:\\-]{0,48}$/;

/** snake_case lower case, so `Wikipedia`, `current-time`, `Current Time` and `Gmail: Find Email` all match a tool. */
export function normalizeToolName(name: string): string {
  return name.trim().replace(/\\_/g, '_').toLowerCase().replace(/[\s\-:]+/g, '_').replace(/^_+|_+$/g, '');
}

/** Drop quotes or backticks around a value, and a lone backtick left on one side. */
export function unquote(text: string): string {
  let t = text.trim().replace(/^```[\w-]*\s*|\s*```$/g, '');
  if (t.length >= 2 && /^(["'`]).*\1$/s.test(t)) return t.slice(1, -1).trim();
  if ((t.match(/`/g) ?? []).length === 1) t = t.replace(/^`|`$/, '');
  return t.trim();
}

/** The text from `open` at `start` to its matching close, skipping brackets inside quotes; undefined if unclosed. */
export function balanced(text: string, start: number): string | undefined {
  const open = text[start]!;
  const close = open === '{' ? '}' : open === '[' ? ']' : ')';
  let depth = 0;
  let quote: string | undefined;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      // An apostrophe inside a word (don't) opens no string.
      if (c === '"' || !/\w/.test(text[i - 1] ?? '')) quote = c;
    } else if (c === open) depth++;
    else if (c === close && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/** A JSON (or `<tool_name>`) blob anywhere in `text` that names a tool: the call, or the answer it carries. */
export function readBlob(text: string): ActionRead {
  const xml = /<tool_name>\s*([^<\s]+)\s*<\/tool_name>/.exec(text);
  if (xml) return { action: { tool: normalizeToolName(xml[1]!), input: xmlArguments(text) } };
  for (let at = text.indexOf('{'); at >= 0; at = text.indexOf('{', at + 1)) {
    const json = balanced(text, at);
    if (!json) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      continue;
    }
    const read = fromObject(parsed);
    if (read) return read;
  }
  return undefined;
}

function fromObject(value: unknown): ActionRead {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  const fn = obj.function && typeof obj.function === 'object' ? (obj.function as Record<string, unknown>) : undefined;
  const tool = obj.action ?? obj.tool_name ?? obj.tool ?? obj.name ?? fn?.name;
  if (typeof tool !== 'string' || !tool.trim()) return undefined;
  const raw = obj.action_input ?? obj.tool_arguments ?? obj.tool_input ?? obj.arguments ?? obj.args ?? obj.input ?? fn?.arguments ?? '';
  if (FINAL.test(tool.trim()) || normalizeToolName(tool) === 'final_answer') {
    const answer = raw && typeof raw === 'object' && 'answer' in raw ? (raw as { answer: unknown }).answer : raw;
    return { answer: typeof answer === 'string' ? answer : JSON.stringify(answer) };
  }
  return { action: { tool: normalizeToolName(tool), input: typeof raw === 'string' ? raw : JSON.stringify(raw) } };
}

function xmlArguments(text: string): string {
  const args = [...text.matchAll(/<arg\s+key="([^"]+)"\s*>([\s\S]*?)<\/arg>/g)];
  if (args.length) return JSON.stringify(Object.fromEntries(args.map((m) => [m[1], m[2]!.trim()])));
  return /<arguments>([\s\S]*?)<\/arguments>/.exec(text)?.[1]?.trim() ?? '';
}

/** `name[input]`, the closing bracket matched, with anything after it on the line ignored. */
export function bracketCall(text: string): { name: string; input: string; rest: string } | undefined {
  const m = /^([A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,3})\s*\[/.exec(text);
  if (!m) return undefined;
  const inner = balanced(text, m[0].length - 1);
  if (!inner) return undefined;
  return { name: m[1]!, input: unquote(inner.slice(1, -1)), rest: text.slice(m[0].length - 1 + inner.length).trim() };
}

/**
 * Read an `Action:` line's value. With an `Action Input:` section after it, the line is the tool's
 * name as a whole (colons included); a sentence there is an attempt we cannot read.
 */
export function readActionValue(value: string, knownTools: ReadonlySet<string>, hasInputSection: boolean): ActionRead {
  const v = value.trim().replace(/^`+|`+$/g, '').trim();
  if (!v || NO_ACTION.test(v)) return undefined;
  if (v.startsWith('{') || v.startsWith('[{') || v.includes('<tool_name>')) {
    const blob = readBlob(v);
    if (blob) return blob;
  }
  const bracket = bracketCall(v);
  if (bracket) return { action: { tool: normalizeToolName(bracket.name), input: bracket.input } };
  const paren = PAREN_CALL.exec(v);
  if (paren) {
    if (knownTools.has(normalizeToolName(paren[1]!))) return { action: { tool: normalizeToolName(paren[1]!), input: unquote(paren[2]!) } };
    return { unknown: v };
  }
  if (hasInputSection) {
    return TOOL_NAME.test(v) && v.split(/\s+/).length <= 6 ? { action: { tool: normalizeToolName(v), input: '' } } : { unknown: v };
  }
  const colon = COLON_CALL.exec(v);
  if (colon) return { action: { tool: normalizeToolName(colon[1]!), input: unquote(colon[2]!) } };
  const [first, ...rest] = v.split(/\s+/);
  if (rest.length > 0 && knownTools.has(normalizeToolName(first!))) {
    return { action: { tool: normalizeToolName(first!), input: unquote(rest.join(' ')) } };
  }
  const bare = unquote(v);
  return /^[A-Za-z][\w -]{0,40}$/.test(bare) || /^[A-Za-z][\w\\]{0,60}$/.test(bare)
    ? { action: { tool: normalizeToolName(bare), input: '' } }
    : undefined;
}
