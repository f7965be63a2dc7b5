/**
 * A loopback TCP proxy in front of a real server, to make that server misbehave on cue without touching
 * it: `freeze` swallows what clients send (a server that stopped answering), `cut` drops every
 * connection and refuses new ones (a server that went away), `restore` lets traffic through again.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  freeze(): void;
  cut(): void;
  restore(): void;
  /** Hold every chunk, both ways, this long before passing it on: a loaded machine or a slow network. */
  delay(ms: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let mode: 'open' | 'frozen' | 'cut' = 'open';
  let delayMs = 0;
  // In order, even when delayed: each socket's chunks go out one after another.
  const pass = (to: net.Socket, chunk: Buffer) => (delayMs > 0 ? setTimeout(() => to.destroyed || to.write(chunk), delayMs) : to.write(chunk));
  const server = net.createServer((client) => {
    if (mode === 'cut') return void client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.on('data', (chunk) => {
      if (mode === 'open') pass(upstream, chunk);
    });
    upstream.on('data', (chunk) => pass(client, chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    freeze: () => void (mode = 'frozen'),
    cut: () => {
      mode = 'cut';
      for (const s of sockets) s.destroy();
    },
    restore: () => void (mode = 'open'),
    delay: (ms) => void (delayMs = ms),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
