/**
 * Builds one ModelReply from streamed chunks (or from a plain completion a server sent instead of
 * a stream): content and reasoning in order, tool calls assembled by index, usage, finish reason.
 * Each piece of text is passed to `onDelta` as it becomes final: after `<think>` blocks are split
 * off and the client-side stop sequences are applied, so a delta is never taken back.
 */
import type OpenAI from 'openai';
import type { ModelDelta, ModelReply, ToolCall } from '../agent/types.js';
import { normalizeFinishReason } from './finish-reason.js';
import { StopCutter } from './stop-cutter.js';
import { splitOrphanClose, ThinkSplitter, type TextPiece } from './think-splitter.js';

/** A streamed delta as servers really send it: reasoning fields and optional indexes included. */
type Delta = OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };
type ToolDelta = Partial<OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall>;

/** Something the engine's `onDelta` threw: passed through untouched, never taken for a server failure. */
export class DeltaCallbackError extends Error {
  constructor(readonly original: unknown) {
    super('onDelta threw');
  }
}

interface PartialCall {
  id?: string;
  name: string;
  args: string;
}

/** Accumulates one reply from its chunks; see the module comment for what it does on the way. */
export class ReplyBuilder {
  private content = '';
  private reasoning = '';
  private readonly calls: PartialCall[] = [];
  private readonly think = new ThinkSplitter();
  private readonly cutter: StopCutter;
  private finish?: string | null;
  private usage?: OpenAI.CompletionUsage | null;
  /** Bytes of reply seen (text or tool calls): after that, a failure is mid-reply. */
  started = false;

  constructor(
    stop: readonly string[] | undefined,
    private readonly onDelta: ((delta: ModelDelta) => void) | undefined,
  ) {
    this.cutter = new StopCutter(stop);
  }

  /** True once a stop sequence cut the reply: the caller drops the rest of the stream. */
  get stopped(): boolean {
    return this.cutter.stopped;
  }

  push(chunk: OpenAI.ChatCompletionChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as Delta;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) this.emit([{ kind: 'reasoning', text: reasoning }]);
    if (delta.content) this.emit(this.think.push(delta.content));
    for (const [i, call] of (delta.tool_calls ?? []).entries()) this.addToolDelta(call, i);
    if (choice.finish_reason) this.finish = choice.finish_reason;
  }

  /** A server that answered the streamed request with one plain completion. */
  pushCompletion(completion: OpenAI.ChatCompletion): void {
    const choice = completion.choices?.[0];
    const message = (choice?.message ?? {}) as Delta & OpenAI.ChatCompletionMessage;
    this.push({
      id: completion.id,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
      usage: completion.usage,
      choices: choice
        ? [{
            index: 0,
            finish_reason: choice.finish_reason,
            delta: {
              content: message.content,
              reasoning_content: message.reasoning_content ?? message.reasoning,
              tool_calls: (message.tool_calls ?? []).map((call, index) => ({ ...call, index })),
            } as Delta,
          }]
        : [],
    });
  }

  /** The finished reply. Usage is 0 where the server reported none. */
  finishReply(): ModelReply {
    this.emit(this.think.flush());
    this.emitContent(this.cutter.flush());
    const toolCalls: ToolCall[] = this.calls
      .filter((c) => c.name)
      .map((c, i) => ({ id: c.id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: c.args } }));
    const { reasoning: orphan, content } = splitOrphanClose(this.content);
    const reasoning = [orphan, this.reasoning].filter(Boolean).join('\n') || undefined;
    return {
      content,
      reasoning,
      toolCalls,
      // A client-side stop cut is an ordinary stop, whatever the server would have said later.
      finishReason: this.stopped ? 'stop' : normalizeFinishReason(this.finish, toolCalls.length > 0),
      usage: {
        promptTokens: this.usage?.prompt_tokens ?? 0,
        completionTokens: this.usage?.completion_tokens ?? 0,
        totalTokens: this.usage?.total_tokens ?? 0,
      },
    };
  }

  private emit(pieces: TextPiece[]): void {
    for (const piece of pieces) {
      if (piece.kind === 'content') {
        this.emitContent(this.cutter.push(piece.text));
      } else if (!this.stopped) {
        this.started = true;
        this.reasoning += piece.text;
        this.send({ kind: 'reasoning', text: piece.text });
      }
    }
  }

  private emitContent(text: string): void {
    if (!text) return;
    this.started = true;
    this.content += text;
    this.send({ kind: 'content', text });
  }

  private send(delta: ModelDelta): void {
    if (!this.onDelta) return;
    try {
      this.onDelta(delta);
    } catch (error) {
      throw new DeltaCallbackError(error);
    }
  }

  private addToolDelta(delta: ToolDelta, position: number): void {
    this.started = true;
    const index = this.indexOf(delta, position);
    const call = this.calls[index] ?? { name: '', args: '' };
    this.calls[index] = call;
    // Ids and names come once, in the first delta; some servers repeat them, none split them.
    if (delta.id && !call.id) call.id = delta.id;
    if (delta.function?.name && !call.name) call.name = delta.function.name;
    if (delta.function?.arguments) call.args += delta.function.arguments;
  }

  /** Deltas carry an index; a server that leaves it out sends whole calls, told apart by id. */
  private indexOf(delta: ToolDelta, position: number): number {
    if (typeof delta.index === 'number') return delta.index;
    if (delta.id) {
      const known = this.calls.findIndex((c) => c.id === delta.id);
      return known >= 0 ? known : this.calls.length;
    }
    return this.calls.length === 0 ? position : this.calls.length - 1;
  }
}
