/**
 * Loaded before every test file: any socket to a host other than loopback (or a local unix socket)
 * throws at once, so a dependency that quietly reaches the internet fails loudly instead of hanging.
 */
import net from 'node:net';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;

type ConnectArgs = unknown[];

function targetOf(args: ConnectArgs): { host?: string; path?: string } {
  // net.connect() normalizes its arguments into an array that it passes as the first argument.
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (first && typeof first === 'object') {
    const o = first as { host?: string; path?: string };
    return { host: o.host, path: o.path };
  }
  if (typeof first === 'string' && Number.isNaN(Number(first))) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : undefined };
}

/** True when the connection target is loopback or a local socket path. */
export function isAllowedTarget(t: { host?: string; path?: string }): boolean {
  if (t.path) return true;
  if (t.host === undefined || t.host === '') return true; // Node defaults to localhost
  return LOOPBACK.test(t.host.replace(/^\[|\]$/g, ''));
}

const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: ConnectArgs) {
  const target = targetOf(args);
  if (!isAllowedTarget(target)) {
    const message = `network guard: tests may only connect to 127.0.0.1, refused ${target.host}`;
    console.error(message);
    throw new Error(message);
  }
  return (originalConnect as (...a: ConnectArgs) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;
