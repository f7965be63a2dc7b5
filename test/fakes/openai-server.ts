/**
 * A local OpenAI-compatible chat completions server for tests: the real `openai` SDK talks to it over
 * HTTP on 127.0.0.1. Replies come from a script (a queue); an empty queue answers 500 and records a
 * failure, so a test that makes more calls than it scripted fails loudly instead of hanging.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  arguments: string | Record<string, unknown>;
  id?: string;
}

export type ScriptedReply =
  | { content?: string; toolCalls?: ScriptedToolCall[]; delayMs?: number; usage?: { prompt: number; completion: number } }
  | { status: number; error: string; headers?: Record<string, string>; delayMs?: number }
  | ((request: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  body: {
    model: string;
    messages: Array<{ role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string; name?: string }>;
    tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>;
    tool_choice?: unknown;
    stop?: string[];
  };
  headers: http.IncomingHttpHeaders;
  at: number;
}

export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  readonly failures: string[] = [];
  private readonly queue: ScriptedReply[] = [];
  private readonly server: http.Server;
  private nextId = 1;
  /** Requests whose connection closed before the reply was sent (the client aborted). */
  aborted = 0;

  private constructor() {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  static async start(): Promise<FakeOpenAIServer> {
    const fake = new FakeOpenAIServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseURL(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Queue replies, answered in order. */
  script(...replies: ScriptedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        return send(res, 404, { error: { message: `fake server: no route ${req.method} ${req.url}` } });
      }
      const recorded: RecordedRequest = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), headers: req.headers, at: Date.now() };
      this.requests.push(recorded);
      let next = this.queue.shift();
      if (next === undefined) {
        const message = `fake server: script empty at request ${this.requests.length}`;
        this.failures.push(message);
        return send(res, 500, { error: { message } });
      }
      while (typeof next === 'function') next = next(recorded);
      const reply = next;
      const respond = () => {
        if (res.destroyed) return;
        if ('status' in reply) return send(res, reply.status, { error: { message: reply.error, type: 'fake' } }, reply.headers);
        send(res, 200, this.completion(recorded.body.model, reply));
      };
      res.on('close', () => {
        if (!res.writableFinished) this.aborted++;
      });
      if (reply.delayMs) setTimeout(respond, reply.delayMs);
      else respond();
    });
  }

  private completion(model: string, reply: Exclude<ScriptedReply, Function | { status: number }>) {
    const toolCalls = (reply.toolCalls ?? []).map((c) => ({
      id: c.id ?? `call_${this.nextId++}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    }));
    const prompt = reply.usage?.prompt ?? 10;
    const completion = reply.usage?.completion ?? 5;
    return {
      id: `chatcmpl-${this.nextId++}`,
      object: 'chat.completion',
      created: 0,
      model,
      choices: [
        {
          index: 0,
          finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
          message: { role: 'assistant', content: reply.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        },
      ],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
  }
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
