/**
 * OpenAI tool calling: tools offered as JSON schemas, parallel calls, results as `tool` messages.
 * Text beside tool calls is the thought; a reply without tool calls, or a `final_answer` call, is the answer.
 */
import type { ToolDefinition } from './tool.js';
import type { ToolIndex } from './tool-index.js';
import type { NextStep, ObservationOut, ProtocolDriver, TextStream } from './protocol.js';
import type { ChatMessage, ModelDelta, ModelReply, ToolSchema } from './types.js';

export const FINAL_ANSWER_TOOL = 'final_answer';

const FINAL_ANSWER_SCHEMA: ToolSchema = {
  type: 'function',
  function: {
    name: FINAL_ANSWER_TOOL,
    description: 'Give the final answer to the user. Call this once you know the answer.',
    parameters: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  },
};

export interface NativeOptions {
  /** Also offer a `final_answer` tool (helps some small models stop cleanly). Always accepted if called. */
  offerFinalAnswerTool?: boolean;
}

export class NativeProtocol implements ProtocolDriver {
  readonly name = 'native' as const;
  constructor(
    private readonly index: ToolIndex,
    private readonly options: NativeOptions = {},
  ) {}

  systemPrompt(tools: readonly ToolDefinition[], maxSteps: number, instructions?: string): string {
    // Short on purpose: it is sent with every step, and every token of it is paid for each time.
    const lines = tools.length
      ? [
          'Answer the question, using tools when they help (several at once if independent).',
          'Before calling tools, say in a sentence what you will do and why.',
          `You have at most ${maxSteps} steps; tool results say which step is next. When you know the answer, reply with it, citing sources tools gave you.`,
        ]
      : ['Answer the question from what you know; no tools are available.'];
    if (instructions) lines.push(instructions);
    return lines.join('\n');
  }

  requestFields(tools: readonly ToolDefinition[], final: boolean) {
    const schemas = tools.map((tool) => this.index.schema(tool));
    if (this.options.offerFinalAnswerTool && !final) schemas.push(FINAL_ANSWER_SCHEMA);
    if (schemas.length === 0) return {};
    // 'auto' is the API's default when tools are sent: only the forced last call says anything.
    return final ? { tools: schemas, toolChoice: 'none' as const } : { tools: schemas };
  }

  prepareHistory(messages: readonly ChatMessage[]): ChatMessage[] {
    return messages as ChatMessage[];
  }

  interpret(reply: ModelReply, step: number): NextStep {
    const content = reply.content.trim();
    const final = reply.toolCalls.find((call) => call.function.name === FINAL_ANSWER_TOOL);
    if (final) {
      const answer = readFinalAnswer(final.function.arguments) ?? content;
      return { kind: 'answer', thought: content || reply.reasoning, answer, assistant: { role: 'assistant', content: answer } };
    }
    if (reply.toolCalls.length === 0) {
      if (!content) {
        return {
          kind: 'remind',
          thought: reply.reasoning,
          reminder: { role: 'user', content: 'Your reply was empty. Call a tool, or reply with the answer.' },
          assistant: { role: 'assistant', content: '' },
        };
      }
      return { kind: 'answer', thought: reply.reasoning, answer: content, assistant: { role: 'assistant', content } };
    }
    // Some servers omit call ids; the API needs them to pair results with calls.
    const toolCalls = reply.toolCalls.map((call, i) => ({ ...call, id: call.id || `call_${step}_${i}` }));
    return {
      kind: 'tools',
      thought: content || reply.reasoning,
      calls: toolCalls.map((call) => ({
        callId: call.id,
        tool: call.function.name,
        raw: { kind: 'json' as const, text: call.function.arguments },
      })),
      assistant: { role: 'assistant', content: content || null, tool_calls: toolCalls },
    };
  }

  observationMessages(results: ObservationOut[], note: string): ChatMessage[] {
    return results.map((r, i) => ({
      role: 'tool' as const,
      tool_call_id: r.call.callId,
      content: i === results.length - 1 ? `${r.output}\n\n${note}` : r.output,
    }));
  }

  reminder(note: string) {
    return { role: 'user' as const, content: note };
  }

  /** A reply's text is the answer unless tool calls follow it (see the `text-delta` event); reasoning is thought. */
  textStream(final: boolean): TextStream {
    // Without tools on offer (the forced last reply) the text can only be the answer.
    return {
      push: (delta: ModelDelta) => [delta.kind === 'reasoning' ? { kind: 'thought', text: delta.text } : { kind: 'answer', text: delta.text, provisional: !final }],
      end: () => [],
    };
  }

  finalNudge(why: string): ChatMessage {
    return {
      role: 'user',
      content: `${why} Do not call any more tools: give your best answer now from what you have found, and say if it is incomplete.`,
    };
  }

  finalAnswer(reply: ModelReply): string | undefined {
    const final = reply.toolCalls.find((call) => call.function.name === FINAL_ANSWER_TOOL);
    const text = (final && readFinalAnswer(final.function.arguments)) || reply.content.trim();
    return text || undefined;
  }
}

function readFinalAnswer(args: string): string | undefined {
  try {
    const value = (JSON.parse(args) as { answer?: unknown }).answer;
    return typeof value === 'string' && value.trim() ? value.trim() : undefined;
  } catch {
    return undefined;
  }
}
