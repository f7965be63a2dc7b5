/**
 * The order cases run in, and how many at once. With two models, every case runs on both back to back
 * (the first model to go alternating from case to case), so a slow minute of the server or a busy
 * neighbour hits both models alike instead of one model's half of the suite.
 */

/** One run to make: a case (by index) on a model, in a repeat. */
export interface Job {
  caseIndex: number;
  model: string;
  repeat: number;
}

/** Every run, interleaved: repeat by repeat, case by case, the models of a case together. */
export function interleave(caseCount: number, models: readonly string[], repeats: number): Job[] {
  const jobs: Job[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (let caseIndex = 0; caseIndex < caseCount; caseIndex++) {
      const turn = (repeat * caseCount + caseIndex) % models.length;
      const order = [...models.slice(turn), ...models.slice(0, turn)];
      for (const model of order) jobs.push({ caseIndex, model, repeat });
    }
  }
  return jobs;
}

/**
 * Run `work` over `items`, at most `concurrency` at a time, starting them in order. Results come back
 * in the items' order; `onDone` hears of each as it ends. `work` must not throw (a case's failure is a result).
 */
export async function runPool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>, onDone?: (result: R) => void): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
      onDone?.(results[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
