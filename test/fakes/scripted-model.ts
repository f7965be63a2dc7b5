/**
 * A scripted model in the test process: each `complete` takes the next reply from a queue and streams
 * its text through `onDelta` in the pieces given (words by default). An empty queue throws, so a test
 * that makes more calls than it scripted fails loudly. For engine tests that need exact control over
 * streaming and finish reasons; the HTTP fake (openai-server.ts) covers the real SDK.
 */
import type { ChatModel, FinishReason, ModelReply, ModelRequest, ToolCall } from '../../src/agent/types.js';

export interface ScriptedModelReply {
  /** Fail this request with this error instead of replying. */
  error?: Error;
  /** The reply's text, streamed in `pieces` (default: word by word). */
  content?: string;
  pieces?: string[];
  reasoning?: string;
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> | string; id?: string }>;
  finishReason?: FinishReason;
  usage?: { prompt: number; completion: number };
}

export class ScriptedModel implements ChatModel {
  readonly requests: ModelRequest[] = [];
  private readonly queue: ScriptedModelReply[] = [];

  constructor(
    readonly model = 'scripted',
    readonly key = `scripted#${model}`,
  ) {}

  script(...replies: ScriptedModelReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    this.requests.push(request);
    const reply = this.queue.shift();
    if (!reply) throw new Error(`scripted model: no reply scripted for request ${this.requests.length}`);
    if (reply.error) throw reply.error;
    if (reply.reasoning) request.onDelta?.({ kind: 'reasoning', text: reply.reasoning });
    const content = reply.content ?? '';
    for (const piece of reply.pieces ?? content.match(/\S+\s*|\s+/g) ?? []) request.onDelta?.({ kind: 'content', text: piece });
    const toolCalls: ToolCall[] = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${this.requests.length}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    }));
    const prompt = reply.usage?.prompt ?? 10;
    const completion = reply.usage?.completion ?? 5;
    return {
      content,
      reasoning: reply.reasoning,
      toolCalls,
      finishReason: reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
      usage: { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion },
    };
  }
}
