/**
 * The operator's HTTP endpoints (only with HEALTH_PORT set): `/healthz` answers 200 while the process
 * is up (a liveness probe: restart me if this stops answering), `/readyz` answers 200 only when every
 * readiness check passes and 503 with the failing ones otherwise (a readiness probe: send me no work),
 * and `/metrics` serves the Prometheus exposition. Plain node:http, bound to HEALTH_HOST.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError } from '../errors.js';

/** One readiness check: resolves when fine, throws (or rejects) with what is wrong. */
export type ReadinessCheck = () => Promise<void> | void;

export interface HealthServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Named checks for `/readyz`, each bounded by `checkTimeoutMs`. */
  checks: Record<string, ReadinessCheck>;
  metrics: { text(): Promise<string>; contentType: string };
  /** Longest a readiness check may take before it counts as failed. Default 2 s. */
  checkTimeoutMs?: number;
}

export interface HealthServer {
  /** The port it listens on (the real one when 0 was asked). */
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** Start listening; rejects if the port cannot be bound (say, already in use). */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  const server = http.createServer((req, res) => {
    void respond(req, res).catch((error) => send(res, 500, `internal error: ${describeError(error)}\n`));
  });
  // A probe that keeps its connection open must not keep a stopping bot alive.
  server.keepAliveTimeout = 1_000;

  async function respond(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
    const path = (req.url ?? '/').split('?')[0];
    switch (path) {
      case '/healthz':
        return send(res, 200, 'ok\n');
      case '/readyz': {
        const results = await Promise.all(Object.entries(options.checks).map(([name, check]) => runCheck(name, check, timeoutMs)));
        const failed = results.filter((r) => r.error !== undefined);
        const body = results.map((r) => `${r.name}: ${r.error === undefined ? 'ok' : `not ready: ${r.error}`}`).join('\n');
        return send(res, failed.length === 0 ? 200 : 503, `${body}\n`);
      }
      case '/metrics':
        return send(res, 200, await options.metrics.text(), { 'content-type': options.metrics.contentType });
      default:
        return send(res, 404, 'not found: try /healthz, /readyz or /metrics\n');
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    port,
    url: `http://${host}:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function runCheck(name: string, check: ReadinessCheck, timeoutMs: number): Promise<{ name: string; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(check), timeout]);
    return { name };
  } catch (error) {
    return { name, error: describeError(error) };
  } finally {
    clearTimeout(timer);
  }
}

function send(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
