/**
 * How a server's tool is presented to the model and to moderators: its name (`<server>__<tool>`, in the
 * model API's name pattern), its description (cleaned of invisible and control characters, capped:
 * a server's description is text from outside, read by the model as instructions), its JSON Schema,
 * and the fingerprint a moderator's enabling pins.
 */
import { createHash } from 'node:crypto';
import { cleanText } from '../agent/clean-text.js';

/** What the model API accepts as a function name. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** Longest description the model is shown for one MCP tool. */
export const DESCRIPTION_MAX_CHARS = 1_000;

/** A tool as the server listed it (the fields of MCP's `Tool` the bot uses). */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };
}

/**
 * `<server>__<tool>` with every character outside `[a-zA-Z0-9_-]` made `_`, cut to 64 characters. A
 * name cut short gets a short hash of the full name at its end, so two long names stay apart.
 */
export function modelToolName(server: string, tool: string): string {
  const full = `${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (full.length <= 64) return full;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, 55)}_${hash}`;
}

/** The description the model sees: cleaned, whitespace runs kept short, capped. */
export function modelDescription(tool: ListedTool): string {
  const text = cleanText(tool.description ?? tool.title ?? '').replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
  const shown = text.length > DESCRIPTION_MAX_CHARS ? `${text.slice(0, DESCRIPTION_MAX_CHARS - 1)}…` : text;
  return shown || `The ${tool.name} tool.`;
}

/** The schema the model is offered: the server's, as an object schema without `$schema`. */
export function modelSchema(tool: ListedTool): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = tool.inputSchema ?? {};
  return { ...rest, type: 'object', properties: rest.properties ?? {} };
}

/**
 * The fingerprint of what the model is told about a tool: its name, description and schema as the
 * server sent them. Enabling pins it; any change suspends the tool until a moderator enables it again.
 */
export function toolFingerprint(tool: ListedTool): string {
  const text = JSON.stringify([tool.name, tool.description ?? '', canonical(tool.inputSchema ?? {})]);
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * For the text protocol, which shows no schemas: the parameter a plain `Action: tool: input` fills
 * (a tool with one string parameter), and an example input (JSON with each parameter's kind).
 */
export function textProtocolHints(schema: Record<string, unknown>): { textParameter?: string; example: string } {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const names = Object.keys(properties);
  if (names.length === 1 && properties[names[0]!]?.type === 'string') return { textParameter: names[0]!, example: 'text' };
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const shown = (required.length ? required : names).slice(0, 6);
  const placeholder: Record<string, unknown> = { string: '…', number: 0, integer: 0, boolean: false, array: [], object: {} };
  return { example: JSON.stringify(Object.fromEntries(shown.map((n) => [n, placeholder[String(properties[n]?.type)] ?? null]))) };
}

/** Annotations in words for moderators (`read-only`, `may destroy`, …). */
export function annotationNotes(tool: ListedTool): string[] {
  const a = tool.annotations ?? {};
  const notes = [a.readOnlyHint === true ? 'read-only' : 'may change things (not marked read-only)'];
  if (a.destructiveHint === true && a.readOnlyHint !== true) notes.push('may destroy data');
  if (a.openWorldHint === true) notes.push('reaches outside systems');
  return notes;
}

/** JSON with object keys sorted, so the same schema always gives the same fingerprint. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}
