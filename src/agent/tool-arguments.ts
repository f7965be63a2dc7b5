/**
 * A tool's arguments: the JSON schema the model is offered, and decoding and validating what the
 * model sent back (a JSON string in the native protocol, the text after `Action: tool:` in the text one).
 */
import { z } from 'zod';
import { describeError } from '../errors.js';
import type { ToolDefinition } from './tool.js';

/** Arguments as the model sent them: a JSON string (native) or the text after `Action: tool:` (text). */
export type RawArguments = { kind: 'json'; text: string } | { kind: 'text'; text: string };

/** The JSON schema of a tool's parameters (the engine's ToolIndex computes it once per tool). */
export function parametersSchema(tool: ToolDefinition): Record<string, unknown> {
  if (tool.inputSchema) return tool.inputSchema;
  const { $schema: _ignored, ...rest } = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

/**
 * The argument check for a tool described by a JSON Schema: an object, holding the properties the
 * schema requires. The tool's own server validates the rest (and says what is wrong as an error result).
 */
export function jsonSchemaArguments(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  return z.record(z.string(), z.unknown()).superRefine((args, ctx) => {
    for (const name of required) if (!(name in args)) ctx.addIssue({ code: 'custom', path: [name], message: 'required' });
  });
}

/** Decode and validate arguments; on failure, an observation that shows what a valid call looks like. */
export function decodeArguments(tool: ToolDefinition, raw: RawArguments): { args: unknown } | { error: string } {
  const text = raw.text.trim();
  let value: unknown;
  if (text === '') value = {};
  else if (raw.kind === 'json' || (text.startsWith('{') && text.endsWith('}'))) {
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (raw.kind === 'json' || !tool.textParameter) {
        return { error: `Error: the arguments for ${tool.name} are not valid JSON (${describeError(error)}). ${usage(tool)}` };
      }
      value = { [tool.textParameter]: text };
    }
  } else if (tool.textParameter) value = { [tool.textParameter]: text };
  else value = text;

  const parsed = tool.parameters.safeParse(value);
  if (parsed.success) return { args: parsed.data };
  const problems = parsed.error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
  return { error: `Error: invalid arguments for ${tool.name}: ${problems}. ${usage(tool)}` };
}

function usage(tool: ToolDefinition): string {
  return `Expected arguments matching this JSON schema: ${JSON.stringify(parametersSchema(tool))}`;
}
