/**
 * Starts a worker file (the calculator's, the chart renderer's, the document reader's) as a child
 * process, in whichever form this code runs. A child process, not a worker thread: V8 can end the whole
 * process when a worker thread hits its heap limit in the middle of certain allocations (seen here with
 * huge mathjs ranges and matrices: about one run in two of the hostile suite took the test process
 * down). A child's heap limit ends only the child, and killing it stops code that never yields.
 *
 * Compiled, the worker is a `.js` file beside this one. From source (tsx in development, vitest in tests)
 * it is a `.ts` file, so the child preloads tsx's CommonJS hook (cheaper to start than its ESM loader).
 * Worker files therefore must not use `import.meta` or top-level await.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/i;

/** The part of a worker its host uses (messages, errors, exit, kill), over a child process's IPC channel. */
export class ProcessWorker extends EventEmitter {
  private readonly exited: Promise<number>;
  private stderrTail = '';
  /** V8 said it ran out of heap: remembered as it is written, since the report that follows can be long. */
  private outOfMemory = false;

  constructor(private readonly child: ChildProcess) {
    super();
    child.on('message', (message) => this.emit('message', message));
    child.on('error', (error) => this.emit('error', error));
    child.stderr?.on('data', (chunk: Buffer) => {
      // Matched over the tail plus the new chunk, so a phrase split across two chunks is still found.
      const recent = this.stderrTail.slice(-100) + chunk.toString('utf8');
      if (OUT_OF_MEMORY.test(recent)) this.outOfMemory = true;
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        // V8 aborts a process that runs out of heap; say so in the shape the host already knows.
        if (this.outOfMemory) {
          this.emit('error', Object.assign(new Error('the worker process ran out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' }));
        } else if (code !== 0 && signal !== 'SIGKILL') {
          this.emit('error', new Error(`the worker process ended (${signal ?? `code ${code}`}): ${this.stderrTail.trim().slice(-300)}`));
        }
        this.emit('exit', code ?? 1);
        resolve(code ?? 1);
      });
    });
  }

  /** The child's process id (undefined if it never started), for status reports and tests. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  postMessage(message: unknown): void {
    if (this.child.connected) this.child.send(message as object);
  }

  /** Kill the process at once (it may be stuck in a computation) and wait for it to be gone. */
  terminate(): Promise<number> {
    // Held again while it dies, so whoever awaits this is not left behind by an emptied event loop.
    this.child.ref();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    return this.exited;
  }

  /** Let the bot's process exit while this worker is idle. */
  unref(): void {
    this.child.unref();
    (this.child.channel as { unref?: () => void } | undefined)?.unref?.();
    (this.child.stderr as { unref?: () => void } | null)?.unref?.();
  }
}

/**
 * Start the worker file `name` (without extension) beside the module `from` (the caller passes its own
 * `import.meta.url`), with a heap of `maxMemoryMb`.
 * `preload` lists plain-JavaScript packages the worker imports; from source they are required before
 * tsx is registered, so tsx does not pass them through its transform (for the 2 MB mathjs bundle that
 * halves start-up).
 */
export function startWorker(name: string, from: string, options: { maxMemoryMb: number }, preload: string[] = []): ProcessWorker {
  const fromSource = /\.[cm]?ts$/.test(new URL(from).pathname);
  const resolve = createRequire(from).resolve;
  const entry = fileURLToPath(new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, from));
  // From source, a CommonJS bootstrap registers tsx and requires the .ts entry (the project is ESM, so
  // Node would not load a .ts entry file itself); compiled, the .js entry starts directly.
  const start = fromSource
    ? ['-e', BOOTSTRAP, '--', resolve('tsx/cjs/api'), entry, ...preload.map((p) => resolve(p))]
    : [entry];
  const child = spawn(process.execPath, [`--max-old-space-size=${options.maxMemoryMb}`, '--max-semi-space-size=8', ...start], {
    // The worker sees no secrets, whatever an expression, a chart or a document ever made it run.
    env: {},
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  return new ProcessWorker(child);
}

const BOOTSTRAP = `
const [tsxApi, entry, ...preload] = process.argv.slice(1);
for (const file of preload) require(file);
require(tsxApi).register();
require(entry);
`;
