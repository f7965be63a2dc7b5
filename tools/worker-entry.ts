/**
 * Starts a worker thread from a file in this folder, in whichever form this code runs. Compiled, the
 * worker is a `.js` file beside this one and starts directly. From source (tsx in development, vitest
 * in tests) it is a `.ts` file that plain Node cannot load, and neither tsx's hooks in the main thread
 * nor vitest's transform reach a new thread. So a small bootstrap registers tsx inside the worker and
 * requires the file. tsx's CommonJS hook is used rather than its ESM loader: the ESM loader runs in a
 * thread of its own, which roughly triples what every fresh calculator worker costs to start.
 * (Worker files therefore must not use `import.meta` or top-level await.)
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
for (const file of workerData.preload) require(file);
require(workerData.tsxCjsApi).register();
require(workerData.entry);
`;

/**
 * Start the worker file `name` (without extension) that sits beside this module. `preload` lists
 * plain-JavaScript packages the worker imports; from source they are loaded before tsx is registered,
 * so tsx does not pass them through its transform (for the 2 MB mathjs bundle that halves start-up).
 */
export function startWorker(
  name: string,
  options: Omit<WorkerOptions, 'eval' | 'workerData'>,
  preload: string[] = [],
): Worker {
  const here = import.meta.url;
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) return new Worker(new URL(`./${name}.js`, here), options);
  return new Worker(BOOTSTRAP, {
    ...options,
    eval: true,
    workerData: {
      // Resolved here, so the worker finds tsx whatever the working directory is.
      tsxCjsApi: createRequire(here).resolve('tsx/cjs/api'),
      preload: preload.map((specifier) => createRequire(here).resolve(specifier)),
      entry: fileURLToPath(new URL(`./${name}.ts`, here)),
    },
  });
}
