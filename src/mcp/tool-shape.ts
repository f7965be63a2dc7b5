/**
 * How a server's tool is named for the model (`<server>__<tool>`, in the model API's name pattern),
 * the hints the text protocol shows in place of its schema, and its annotations in words for
 * moderators. What it says of itself (title, description, schema) is cleaned in tool-listing.ts.
 */
import { createHash } from 'node:crypto';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** What the model API accepts as a function name. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/**
 * `<server>__<tool>` with every character outside `[a-zA-Z0-9_-]` made `_`, cut to 64 characters. A
 * name cut short gets a short hash of the full name at its end, so two long names stay apart.
 */
export function modelToolName(server: string, tool: string): string {
  const full = `${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (full.length <= TEXT_CAPS.toolName) return full;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, TEXT_CAPS.toolName - hash.length - 1)}_${hash}`;
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
export function annotationNotes(annotations: Record<string, boolean>): string[] {
  const notes = [annotations.readOnlyHint === true ? 'read-only' : 'may change things (not marked read-only)'];
  if (annotations.destructiveHint === true && annotations.readOnlyHint !== true) notes.push('may destroy data');
  if (annotations.openWorldHint === true) notes.push('reaches outside systems');
  return notes;
}
