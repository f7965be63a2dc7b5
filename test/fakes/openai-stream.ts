/**
 * How the fake OpenAI server writes a scripted reply: as one JSON completion, or as the SSE chunks
 * a real server streams (role, reasoning, content, tool-call pieces, finish, usage, [DONE]) at a
 * set pace, with optional pauses, a dropped connection or an error event in the middle.
 */
import type http from 'node:http';

export interface ScriptedToolCall {
  name: string;
  arguments: string | Record<string, unknown>;
  id?: string;
}

/** How a reply is streamed when the client asks for a stream. Events are numbered from 0 in the order above. */
export interface StreamShape {
  /** Content pieces, in order. Default: the content cut into 8-character pieces. */
  chunks?: string[];
  /** Reasoning pieces. Default: the reasoning cut into 8-character pieces. */
  reasoningChunks?: string[];
  /** Tool-call arguments are sent in pieces of this many characters. Default 16. */
  argumentPieceSize?: number;
  /** Pause between events, ms. */
  paceMs?: number;
  /** Pause after the headers, before the first event, ms. */
  firstEventDelayMs?: number;
  /** One longer pause before event number `beforeEvent`. */
  pause?: { beforeEvent: number; ms: number };
  /** During the first-event delay and the pause, send an SSE comment (`: ping`) this often, as some servers do. */
  pingEveryMs?: number;
  /** Destroy the connection before event number n. */
  dropBeforeEvent?: number;
  /** Send an SSE error event before event number `beforeEvent` (default 0) and end the stream. */
  errorEvent?: { error: unknown; beforeEvent?: number };
  /** Answer the streamed request with one plain JSON completion instead. */
  plainJson?: boolean;
  /** Answer with this JSON body and status 200 instead (a gateway that sends errors that way). */
  rawJson?: unknown;
  /** When to send the final usage chunk. Default: when the request asks for it (`stream_options.include_usage`). */
  usage?: 'asked' | 'always' | 'never';
}

export interface ScriptedMessage {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Separate reasoning text, as DeepSeek, Qwen and vLLM (`reasoning_content`) or Ollama (`reasoning`) send it. */
  reasoning?: string;
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** Override the finish reason (`length`, `content_filter`, a server's own word). */
  finishReason?: string;
  /** Wait this long before answering at all (no headers). */
  delayMs?: number;
  usage?: { prompt: number; completion: number };
  stream?: StreamShape;
}

interface Wire {
  id: string;
  model: string;
  toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  content: string;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export function toWire(reply: ScriptedMessage, model: string, nextId: () => number, stop: string[] | undefined, honourStop: boolean): Wire {
  let content = reply.content ?? '';
  let stopped = false;
  for (const s of honourStop ? (stop ?? []) : []) {
    const at = content.indexOf(s);
    if (at >= 0) {
      content = content.slice(0, at);
      stopped = true;
    }
  }
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? `call_${nextId()}`,
    type: 'function' as const,
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  const prompt = reply.usage?.prompt ?? 10;
  const completion = reply.usage?.completion ?? 5;
  return {
    id: `chatcmpl-${nextId()}`,
    model,
    toolCalls,
    content,
    finishReason: reply.finishReason ?? (stopped ? 'stop' : toolCalls.length ? 'tool_calls' : 'stop'),
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

/** The non-streamed completion body. */
export function completionBody(reply: ScriptedMessage, wire: Wire) {
  const field = reply.reasoningField ?? 'reasoning_content';
  return {
    id: wire.id,
    object: 'chat.completion',
    created: 0,
    model: wire.model,
    choices: [
      {
        index: 0,
        finish_reason: wire.finishReason,
        message: {
          role: 'assistant',
          content: reply.content === undefined && wire.toolCalls.length ? null : wire.content,
          ...(reply.reasoning ? { [field]: reply.reasoning } : {}),
          ...(wire.toolCalls.length ? { tool_calls: wire.toolCalls } : {}),
        },
      },
    ],
    usage: wire.usage,
  };
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The SSE events of a streamed reply, each a JSON chunk (or `[DONE]`). */
export function streamEvents(reply: ScriptedMessage, wire: Wire, usageAsked: boolean): string[] {
  const shape = reply.stream ?? {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id: wire.id, object: 'chat.completion.chunk', created: 0, model: wire.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
  const field = reply.reasoningField ?? 'reasoning_content';
  const events = [chunk({ role: 'assistant', content: '' })];
  for (const r of shape.reasoningChunks ?? pieces(reply.reasoning ?? '', 8)) events.push(chunk({ [field]: r }));
  for (const c of shape.chunks ?? pieces(wire.content, 8)) events.push(chunk({ content: c }));
  wire.toolCalls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const p of pieces(call.function.arguments, shape.argumentPieceSize ?? 16)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    }
  });
  events.push(chunk({}, wire.finishReason));
  const usage = shape.usage ?? 'asked';
  if (usage === 'always' || (usage === 'asked' && usageAsked)) {
    events.push(JSON.stringify({ id: wire.id, object: 'chat.completion.chunk', created: 0, model: wire.model, choices: [], usage: wire.usage }));
  }
  events.push('[DONE]');
  return events;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Wait `ms`, writing keep-alive comments meanwhile when the shape asks for them. */
async function wait(res: http.ServerResponse, ms: number, pingEveryMs?: number): Promise<void> {
  if (!pingEveryMs) return sleep(ms);
  for (let left = ms; left > 0 && !res.destroyed; left -= pingEveryMs) {
    await sleep(Math.min(pingEveryMs, left));
    if (!res.destroyed) res.write(': ping\n\n');
  }
}

/** Write the events at the reply's pace; stops quietly if the client goes away. */
export async function writeStream(res: http.ServerResponse, events: string[], shape: StreamShape = {}): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  if (shape.firstEventDelayMs) await wait(res, shape.firstEventDelayMs, shape.pingEveryMs);
  for (let i = 0; i < events.length; i++) {
    if (res.destroyed) return;
    if (i > 0 && shape.paceMs) await sleep(shape.paceMs);
    if (shape.pause?.beforeEvent === i) await wait(res, shape.pause.ms, shape.pingEveryMs);
    if (res.destroyed) return;
    if (shape.dropBeforeEvent === i) {
      res.socket?.destroy();
      return;
    }
    if (shape.errorEvent && (shape.errorEvent.beforeEvent ?? 0) === i) {
      res.end(`data: ${JSON.stringify({ error: shape.errorEvent.error })}\n\n`);
      return;
    }
    res.write(`data: ${events[i]}\n\n`);
  }
  res.end();
}
