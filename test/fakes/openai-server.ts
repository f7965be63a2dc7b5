/**
 * A local OpenAI-compatible chat completions server for tests: the real `openai` SDK talks to it over
 * HTTP on 127.0.0.1. Replies come from a script (a queue); an empty queue answers 500 and records a
 * failure, so a test that makes more calls than it scripted fails loudly instead of hanging.
 *
 * A streamed request (`stream: true`) gets the same scripted reply as SSE chunks (see
 * openai-stream.ts for pace, pauses, drops and error events); others get one JSON completion. Like
 * many real servers it ignores `stop` unless told otherwise. It also answers the GETs that servers
 * use to report a model's context window: `/v1/models`, llama.cpp's `/props`, LM Studio's `/api/v0/models`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { completionBody, streamEvents, toWire, writeStream, type ScriptedMessage } from './openai-stream.js';
import { fakeEmbedding, fakeTokens } from './fake-embeddings.js';

export type { ScriptedMessage, ScriptedToolCall, StreamShape } from './openai-stream.js';

/** An error reply. `body` replaces the default `{"error": {message, type, code, param}}` (other servers' shapes). */
export interface ScriptedError {
  status: number;
  error: string;
  type?: string;
  code?: string | number | null;
  param?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type ScriptedReply = ScriptedMessage | ScriptedError | ((request: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  body: {
    model: string;
    messages: Array<{ role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string; name?: string }>;
    tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>;
    tool_choice?: unknown;
    stop?: string[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    max_tokens?: number;
    max_completion_tokens?: number;
  };
  headers: http.IncomingHttpHeaders;
  at: number;
}

export interface FakeServerOptions {
  /** Answer 400 "Unknown parameter: 'stream_options'" to any request that sends it, as some gateways do. */
  rejectStreamOptions?: boolean;
  /** Cut replies at the request's stop sequences, as a server that honours `stop` does. Default: ignore them. */
  honourStop?: boolean;
  /** Body of `GET /v1/models`. Default: one model, `fake-model`, with no context field. */
  models?: unknown;
  /** Body of llama.cpp's `GET /props`; unset answers 404. */
  props?: unknown;
  /** Body of LM Studio's `GET /api/v0/models`; unset answers 404. */
  lmStudioModels?: unknown;
}

export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  readonly failures: string[] = [];
  /** Paths of the GET requests, in order. */
  readonly gets: string[] = [];
  private readonly queue: ScriptedReply[] = [];
  private readonly server: http.Server;
  private nextId = 1;
  /** Requests whose connection closed before the reply was sent (the client aborted). */
  aborted = 0;
  /** `/v1/embeddings` requests, in order (model and inputs). */
  readonly embeddingRequests: Array<{ model: string; input: string[]; dimensions?: number }> = [];
  /** While true, `/v1/embeddings` answers 503, as a server that is down or overloaded. */
  embeddingsDown = false;
  /** Delay before each `/v1/embeddings` answer (a slow server). */
  embeddingDelayMs = 0;
  /** The next this many `/v1/embeddings` requests answer 500 (a hiccup the client's retries get past). */
  embeddingFailures = 0;

  private constructor(readonly options: FakeServerOptions) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  static async start(options: FakeServerOptions = {}): Promise<FakeOpenAIServer> {
    const fake = new FakeOpenAIServer(options);
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
      if (req.method === 'GET') return this.answerGet(req.url ?? '', res);
      if (req.method === 'POST' && req.url?.endsWith('/embeddings')) return this.answerEmbeddings(JSON.parse(Buffer.concat(chunks).toString('utf8')), res);
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        return send(res, 404, { error: { message: `fake server: no route ${req.method} ${req.url}` } });
      }
      const recorded: RecordedRequest = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), headers: req.headers, at: Date.now() };
      this.requests.push(recorded);
      if (this.options.rejectStreamOptions && recorded.body.stream_options) {
        const error = { message: "Unknown parameter: 'stream_options'.", type: 'invalid_request_error', param: 'stream_options', code: 'unknown_parameter' };
        return send(res, 400, { error });
      }
      let next = this.queue.shift();
      if (next === undefined) {
        const message = `fake server: script empty at request ${this.requests.length}`;
        this.failures.push(message);
        return send(res, 500, { error: { message } });
      }
      while (typeof next === 'function') next = next(recorded);
      const reply = next;
      res.on('close', () => {
        if (!res.writableFinished) this.aborted++;
      });
      const respond = () => {
        if (res.destroyed) return;
        if ('status' in reply) return send(res, reply.status, reply.body ?? errorBody(reply), reply.headers);
        this.answer(reply, recorded, res);
      };
      if (reply.delayMs) setTimeout(respond, reply.delayMs);
      else respond();
    });
  }

  private answer(reply: ScriptedMessage, recorded: RecordedRequest, res: http.ServerResponse): void {
    const { body } = recorded;
    if (reply.stream?.rawJson !== undefined) return send(res, 200, reply.stream.rawJson);
    const wire = toWire(reply, body.model, () => this.nextId++, body.stop, this.options.honourStop ?? false);
    if (!body.stream || reply.stream?.plainJson) return send(res, 200, completionBody(reply, wire));
    void writeStream(res, streamEvents(reply, wire, body.stream_options?.include_usage === true), reply.stream);
  }

  /** `/v1/embeddings` with the vectors of fake-embeddings.ts; errors the way OpenAI sends them. */
  private answerEmbeddings(body: { model?: string; input?: unknown; dimensions?: number }, res: http.ServerResponse): void {
    const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : [];
    this.embeddingRequests.push({ model: String(body.model), input, ...(body.dimensions ? { dimensions: body.dimensions } : {}) });
    const respond = () => {
      if (this.embeddingFailures > 0) {
        this.embeddingFailures -= 1;
        return send(res, 500, { error: { message: 'fake server: a hiccup', type: 'server_error', code: null, param: null } });
      }
      if (this.embeddingsDown) return send(res, 503, { error: { message: 'fake server: embeddings are down', type: 'server_error', code: null, param: null } });
      if (input.length === 0 || input.some((t) => t === '')) return send(res, 400, { error: { message: "'input' must not be empty", type: 'invalid_request_error', code: null, param: 'input' } });
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, body.dimensions) }));
      const tokens = input.reduce((n, t) => n + fakeTokens(t), 0);
      send(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
    };
    if (this.embeddingDelayMs) setTimeout(respond, this.embeddingDelayMs);
    else respond();
  }

  private answerGet(url: string, res: http.ServerResponse): void {
    this.gets.push(url);
    const path = url.split('?')[0];
    const found =
      path === '/v1/models'
        ? (this.options.models ?? { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }] })
        : path === '/props'
          ? this.options.props
          : path === '/api/v0/models'
            ? this.options.lmStudioModels
            : undefined;
    if (found === undefined) return send(res, 404, { error: { message: `fake server: no route GET ${url}` } });
    send(res, 200, found);
  }
}

function errorBody(reply: ScriptedError) {
  return { error: { message: reply.error, type: reply.type ?? 'fake', code: reply.code ?? null, param: reply.param ?? null } };
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
