/**
 * Starts a worker thread from a file in this folder, in whichever form this code runs. Compiled, the
 * worker is a `.js` file beside this one and starts directly. From source (tsx in development, vitest
 * in tests) it is a `.ts` file that plain Node cannot load, and neither tsx's hooks in the main thread
 * nor vitest's transform reach a new thread (Node 20 does not apply `--import` loaders to a worker's
 * entry either), so a small bootstrap registers tsx inside the worker and then imports the file.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsxApi)
  .then((tsx) => tsx.register())
  .then(() => import(workerData.entry))
  .catch((error) => { console.error(error); process.exit(1); });
`;

/** Start the worker file `name` (without extension) that sits beside this module. */
export function startWorker(name: string, options: Omit<WorkerOptions, 'eval' | 'workerData'>): Worker {
  const here = import.meta.url;
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) return new Worker(new URL(`./${name}.js`, here), options);
  return new Worker(BOOTSTRAP, {
    ...options,
    eval: true,
    workerData: { tsxApi: tsxEsmApi(here), entry: new URL(`./${name}.ts`, here).href },
  });
}

/**
 * tsx's ESM API as an absolute URL, so the worker finds it whatever the working directory is. Its
 * `exports` hands `require.resolve` the CommonJS build; the ESM build sits beside it.
 */
function tsxEsmApi(from: string): string {
  const cjs = createRequire(from).resolve('tsx/esm/api');
  return pathToFileURL(path.join(path.dirname(cjs), 'index.mjs')).href;
}
