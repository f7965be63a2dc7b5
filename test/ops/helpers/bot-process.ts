/**
 * The bot as a separate process, started the way a user starts it (`npm start`, `npm run start:prod`
 * or a plain `node` command), with only the environment given. Output is collected so tests can wait
 * for log lines; the process runs in its own process group, so stopping it reaches npm's child too.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface BotProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output (from `from`), rejects with the output after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number, from?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit status (null when ended by a signal). */
  readonly exited: Promise<number | null>;
  /** Send `signal` to the whole group (npm, its shell, node) and wait for the exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

export function startBotProcess(command: string, args: string[], options: { cwd: string; env: Record<string, string>; stdin?: boolean }): BotProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    // `stdin`: a pipe the test writes to (a bot whose clock it moves); otherwise nothing.
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
    for (const listener of listeners) listener();
  });

  const waitFor = (pattern: RegExp, timeoutMs = 30_000, from = 0) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = text.slice(from).match(pattern);
        if (match) finish(() => resolve(match));
        else if (done) finish(() => reject(new Error(`the process ended before printing ${pattern}:\n${text}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${text}`))), timeoutMs);
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });

  return {
    child,
    output: () => text,
    waitFor,
    exited,
    async stop(signal = 'SIGTERM', timeoutMs = 30_000) {
      if (done) return exited;
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // Already gone.
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** GET a URL on 127.0.0.1: status and body text. */
export async function httpGet(url: string): Promise<{ status: number; body: string; contentType: string | null }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type') };
}

/** The value of one Prometheus series in an exposition text (labels given as they print), or undefined. */
export function metricValue(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}
