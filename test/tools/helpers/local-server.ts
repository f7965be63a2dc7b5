/**
 * A throwaway HTTP server on 127.0.0.1 for tool tests: routes are plain handlers keyed by path, and
 * every request is recorded so a test can check what the tool sent (User-Agent, query parameters).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => void;

export interface LocalServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  port: number;
  requests: Array<{ url: URL; headers: http.IncomingHttpHeaders }>;
  /** Replace the handler for `path` (or '*' for any path not routed). */
  route(path: string, handler: Route): void;
  close(): Promise<void>;
}

/** Start a server answering `routes` (unrouted paths get 404). */
export async function startLocalServer(routes: Record<string, Route> = {}): Promise<LocalServer> {
  const table = new Map(Object.entries(routes));
  const requests: LocalServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ url, headers: req.headers });
    const handler = table.get(url.pathname) ?? table.get('*');
    if (handler) handler(req, res, url);
    else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    route: (path, handler) => void table.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answer with `body` as JSON. */
export function json(body: unknown, status = 200): Route {
  return (_req, res) => res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}
