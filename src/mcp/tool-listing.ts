/**
 * What a server's tool says of itself, as the bot passes it on: every text field cleaned like tool
 * output and capped (the title, the description, and in the input schema every string at any depth:
 * descriptions, titles, enum values, examples, defaults), so what a moderator reads in `/tools` is
 * what the model reads. A tool the bot cannot pass on faithfully is refused, with the reason: a schema
 * larger or deeper than the caps, or a parameter name that holds invisible characters (cleaning it
 * would change what the server is sent). The fingerprint a moderator's enabling pins is taken over
 * this listing: name, title, description, the whole schema and the annotations, all that the model or
 * the policy reads. Walks the schema with a stack of its own, never by recursion on it.
 */
import { createHash } from 'node:crypto';
import { cleanText } from '../agent/clean-text.js';
import type { ToolListing } from '../agent/tool.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** The caps on what a server lists (TEXT_CAPS says why each is that size): a description and a title, any string in a schema, the schema as compact JSON once cleaned (larger: not offered). */
const { mcpDescription: DESCRIPTION_MAX_CHARS, mcpTitle: TITLE_MAX_CHARS, mcpSchemaString: SCHEMA_STRING_MAX_CHARS, mcpSchema: SCHEMA_MAX_CHARS } = TEXT_CAPS;
/** Deepest schema offered. */
export const SCHEMA_MAX_DEPTH = 24;

/** A tool as the server listed it (the fields of MCP's `Tool` the bot uses; typed loosely: servers send what they send). */
export interface ListedTool {
  name: string;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  annotations?: unknown;
}

/** The annotation hints the policy reads; anything else a server sends is left out. */
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** `text` cleaned, whitespace runs kept short, capped at `max` (with `…`). */
export function cleanField(text: string, max: number): string {
  const clean = cleanText(text.length > max * 4 + 64 ? text.slice(0, max * 4 + 64) : text).replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The listing the model and moderators see, or why the tool is not offered. */
export function presentTool(listed: ListedTool): { listing: ToolListing } | { refused: string } {
  const title = typeof listed.title === 'string' ? cleanField(listed.title, TITLE_MAX_CHARS) : undefined;
  // The model reads the description, or the title when there is none.
  const description = cleanField(typeof listed.description === 'string' ? listed.description : (title ?? ''), DESCRIPTION_MAX_CHARS) || `The ${cleanField(listed.name, TEXT_CAPS.toolName)} tool.`;
  const schema = cleanSchema(listed.inputSchema);
  if ('refused' in schema) return schema;
  const raw = (listed.annotations && typeof listed.annotations === 'object' ? listed.annotations : {}) as Record<string, unknown>;
  const annotations: Record<string, boolean> = {};
  for (const hint of HINTS) if (typeof raw[hint] === 'boolean') annotations[hint] = raw[hint] as boolean;
  const listing: ToolListing = { tool: listed.name, ...(title ? { title } : {}), description, schema: schema.text, annotations };
  return { listing };
}

/**
 * The fingerprint of a listing: everything in it. Enabling pins it; any change (a title, one word of a
 * nested description, `readOnlyHint`) suspends the tool until a moderator looks again.
 */
export function listingFingerprint(listing: ToolListing): string {
  const text = JSON.stringify([listing.tool, listing.title ?? null, listing.description, listing.schema, HINTS.map((h) => listing.annotations[h] ?? null)]);
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

type Frame = { value: unknown; depth: number; put: (v: unknown) => void; key?: string };

/**
 * The schema the model is offered, as canonical JSON (keys sorted, so the same schema always gives the
 * same fingerprint): an object schema without `$schema`, every string cleaned and capped.
 */
function cleanSchema(input: unknown): { text: string } | { refused: string } {
  const top = input && typeof input === 'object' && !Array.isArray(input) ? { ...(input as Record<string, unknown>) } : {};
  delete top.$schema;
  top.type = 'object';
  if (!top.properties || typeof top.properties !== 'object') top.properties = {};
  let root: unknown;
  const stack: Frame[] = [{ value: top, depth: 0, put: (v) => (root = v) }];
  let budget = SCHEMA_MAX_CHARS * 8; // strings read before capping: a bound on the work a hostile schema costs
  while (stack.length > 0) {
    const { value, depth, put, key } = stack.pop()!;
    if (depth > SCHEMA_MAX_DEPTH) return { refused: `its parameter schema is nested deeper than ${SCHEMA_MAX_DEPTH} levels` };
    if (typeof value === 'string') {
      budget -= Math.min(value.length, SCHEMA_STRING_MAX_CHARS * 4);
      put(cleanField(value, SCHEMA_STRING_MAX_CHARS));
    } else if (Array.isArray(value)) {
      const out: unknown[] = new Array(value.length);
      budget -= value.length;
      value.forEach((item, i) => stack.push({ value: item, depth: depth + 1, put: (v) => (out[i] = v) }));
      put(out);
    } else if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      const keys = Object.keys(value).sort();
      budget -= keys.length;
      for (const name of keys) out[key === 'properties' ? name : cleanField(name, TEXT_CAPS.mcpPropertyName)] = null; // keys in sorted order
      for (const name of keys) {
        // Under `properties`, keys are parameter names: the server must be sent them as they are.
        if (key === 'properties' && (cleanText(name) !== name || name.length > TEXT_CAPS.mcpPropertyName || name.trim() === '')) {
          return { refused: `one of its parameter names holds invisible characters or is longer than ${TEXT_CAPS.mcpPropertyName} characters (cleaning it would change what the server is sent)` };
        }
        const shownKey = key === 'properties' ? name : cleanField(name, TEXT_CAPS.mcpPropertyName);
        stack.push({ value: (value as Record<string, unknown>)[name], depth: depth + 1, key: name, put: (v) => (out[shownKey] = v) });
      }
      put(out);
    } else put(value);
    if (budget < 0) return { refused: `its parameter schema is larger than the ${SCHEMA_MAX_CHARS.toLocaleString('en-US')} characters the bot offers` };
  }
  const text = JSON.stringify(root);
  if (text.length > SCHEMA_MAX_CHARS) {
    return { refused: `its parameter schema is larger than the ${SCHEMA_MAX_CHARS.toLocaleString('en-US')} characters the bot offers (${text.length.toLocaleString('en-US')} once cleaned)` };
  }
  return { text };
}
