/**
 * The REST side: matches `/api/v10/...` requests against route templates, parses JSON and
 * multipart bodies (discord.js sends files as `files[n]` parts plus `payload_json`), checks the bot
 * token, turns thrown ApiErrors into Discord's error JSON and records every call by route template.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ApiError, errors } from './api-error.js';
import type { GlobalRateLimiter } from './global-rate-limit.js';
import type { RestCall } from './records.js';

type Json = Record<string, unknown>;

export interface UploadedFile {
  /** The form field, e.g. `files[0]`. */
  field: string;
  /** n from `files[n]`, matching `attachments[].id` in the payload. */
  index: number | null;
  filename: string;
  size: number;
  contentType: string | null;
  data: Buffer;
}

export interface RequestContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Json;
  files: UploadedFile[];
}

export interface Reply {
  status: number;
  body?: unknown;
  /** Raw bytes instead of JSON (attachment downloads). */
  raw?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: string;
  pattern: string;
  /** Interaction callbacks and webhook routes are called without the bot token. */
  auth: boolean;
  handle(ctx: RequestContext): Reply | Promise<Reply>;
}

export const API_PREFIX = '/api/v10';
const MAX_BODY = 30 * 1024 * 1024;

export const json = (body: unknown, status = 200): Reply => ({ status, body });
export const noContent = (): Reply => ({ status: 204 });

export interface RestOptions {
  token: () => string;
  onCall: (call: RestCall) => void;
  log: (line: string) => void;
  /** The bot-wide limit on routes called with the bot token (interaction endpoints are exempt). */
  global?: GlobalRateLimiter;
}

export class RestRouter {
  constructor(private readonly routes: RouteDef[], private readonly options: RestOptions) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || '/' : null;
    const found = path === null ? undefined : this.match(method, path);
    let reply: Reply;
    try {
      if (!found) {
        this.options.log(`[fake-discord] unknown route: ${method} ${url.pathname}${url.search} — add it to the fake if the bot needs it`);
        await drain(req);
        throw errors.notFound();
      }
      if (found.route.auth && req.headers.authorization !== `Bot ${this.options.token()}`) {
        await drain(req);
        throw errors.unauthorized();
      }
      if (found.route.auth) this.options.global?.take();
      const { body, files } = await readBody(req);
      reply = await found.route.handle({
        method, path: path as string, params: found.params, query: url.searchParams, headers: req.headers, body, files,
      });
    } catch (error) {
      reply = toErrorReply(error, this.options.log);
    }
    send(res, reply);
    this.options.global?.noteResponse(reply.status, reply.headers?.['x-ratelimit-scope']);
    const body = reply.body as Json | undefined;
    this.options.onCall({
      method,
      route: found ? `${method} ${found.route.pattern}` : 'UNKNOWN',
      exempt: found ? !found.route.auth : false,
      path: url.pathname,
      status: reply.status,
      errorCode: reply.status >= 400 && typeof body?.code === 'number' ? body.code : null,
      at: started,
      durationMs: performance.now() - started,
    });
  }

  private match(method: string, path: string): { route: RouteDef; params: Record<string, string> } | undefined {
    const parts = path.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const pattern = route.pattern.split('/').filter(Boolean);
      if (pattern.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const ok = pattern.every((seg, i) => {
        const actual = decodeURIComponent(parts[i] as string);
        if (seg.startsWith(':')) {
          params[seg.slice(1)] = actual;
          return true;
        }
        return seg === actual;
      });
      if (ok) return { route, params };
    }
    return undefined;
  }
}

function toErrorReply(error: unknown, log: (line: string) => void): Reply {
  if (error instanceof ApiError) return { status: error.status, body: error.body(), headers: error.headers };
  log(`[fake-discord] internal error: ${error instanceof Error ? error.stack : String(error)}`);
  return { status: 500, body: { message: '500: Internal Server Error', code: 0 } };
}

function send(res: ServerResponse, reply: Reply): void {
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  if (reply.raw) {
    res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/octet-stream' });
    res.end(reply.raw);
  } else if (reply.status === 204 || reply.body === undefined) {
    res.writeHead(reply.status);
    res.end();
  } else {
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.body));
  }
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _chunk of req) {
    // discard
  }
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw errors.requestTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function readBody(req: IncomingMessage): Promise<{ body: Json; files: UploadedFile[] }> {
  const raw = await readRaw(req);
  const type = req.headers['content-type'] ?? '';
  if (raw.length === 0) return { body: {}, files: [] };
  if (type.startsWith('multipart/form-data')) return readMultipart(raw, type);
  return { body: parseJson(raw.toString('utf8')), files: [] };
}

function parseJson(text: string): Json {
  try {
    const value: unknown = JSON.parse(text);
    return (value && typeof value === 'object' ? value : {}) as Json;
  } catch {
    throw errors.invalidJson();
  }
}

/** Node's fetch Request already knows multipart; borrow its parser rather than write one. */
async function readMultipart(raw: Buffer, contentType: string): Promise<{ body: Json; files: UploadedFile[] }> {
  const form = await new Request('http://127.0.0.1/', {
    method: 'POST', headers: { 'content-type': contentType }, body: Uint8Array.from(raw),
  }).formData();
  let body: Json = {};
  const files: UploadedFile[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      if (field === 'payload_json') body = parseJson(value);
      else body[field] = value;
      continue;
    }
    const index = /^files\[(\d+)\]$/.exec(field)?.[1];
    files.push({
      field, index: index === undefined ? null : Number(index), filename: value.name, size: value.size,
      contentType: value.type || null, data: Buffer.from(await value.arrayBuffer()),
    });
  }
  return { body, files };
}
