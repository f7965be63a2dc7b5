/**
 * The chat message's wire shape (types.ts) as a zod schema: one home for reading messages back from
 * storage, whether a thread's memory (src/state/records.ts, with its author and time beside each) or a
 * run's saved state (run-state.ts). Saved data is checked whole when it is read, never cast.
 */
import { z } from 'zod';

export const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

export const ContentPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('image_url'),
    image_url: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
  }),
]);

export const UsageSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
});

/**
 * A chat message of each role, with `extra` fields beside (a stored message's author and time). `parts`:
 * what a user message's list of parts must be (a thread's memory never keeps an empty one).
 */
export function chatMessageSchema<Extra extends z.ZodRawShape>(extra: Extra, parts: z.ZodType<z.infer<typeof ContentPartSchema>[]> = z.array(ContentPartSchema)) {
  return z.discriminatedUnion('role', [
    z.object({ role: z.literal('system'), content: z.string(), ...extra }),
    z.object({ role: z.literal('user'), content: z.union([z.string(), parts]), name: z.string().optional(), ...extra }),
    z.object({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(ToolCallSchema).optional(), ...extra }),
    z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string(), ...extra }),
  ]);
}

/** A chat message as the engine sends it. */
export const ChatMessageSchema = chatMessageSchema({});
