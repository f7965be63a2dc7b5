/**
 * What a `calculate` call costs with the worker kept warm, against two in-run baselines: the same
 * evaluator called in-process (no thread hop, no kill switch: the floor), and a cold worker started for
 * the call (what a worker per call, or a worker after a kill, would cost every time).
 */
import { CalculatorPool } from '../tools/calculator/pool.js';
import { createCalculatorEvaluator } from '../tools/calculator/evaluator.js';
import { fmt, median, percentile, type BenchSection } from './stats.js';

const EXPRESSIONS = ['2 + 3 * 4', 'sqrt(2) * pi', '5 km to mi', '15% * 80', 'det([1, 2; 3, 4])', 'bignumber(2)^100'];

async function timeEach(count: number, call: () => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call();
    times.push((performance.now() - started) * 1_000);
  }
  return times;
}

/** The calculator bench: median µs per call per expression, warm worker vs in-process vs cold start. */
export async function benchCalculator(options: { warmup?: number; calls?: number; coldStarts?: number } = {}): Promise<BenchSection> {
  const warmup = options.warmup ?? 50;
  const calls = options.calls ?? 400;
  const coldStarts = options.coldStarts ?? 5;
  const evaluator = createCalculatorEvaluator();
  const calculator = new CalculatorPool();
  await calculator.warm();
  const rows: BenchSection['rows'] = [];
  const warmMedians: number[] = [];
  try {
    for (const expression of EXPRESSIONS) {
      await timeEach(warmup, () => calculator.calculate(expression));
      await timeEach(warmup, () => evaluator.calculate(expression));
      // Interleaved halves, so a burst of machine noise hits both sides alike.
      const warm = [...(await timeEach(calls / 2, () => calculator.calculate(expression)))];
      const inProcess = [...(await timeEach(calls / 2, () => evaluator.calculate(expression)))];
      warm.push(...(await timeEach(calls / 2, () => calculator.calculate(expression))));
      inProcess.push(...(await timeEach(calls / 2, () => evaluator.calculate(expression))));
      warmMedians.push(median(warm));
      rows.push({
        case: `\`${expression}\``,
        'warm worker, median µs': fmt(median(warm)),
        'warm worker, p95 µs': fmt(percentile(warm, 95)),
        'in-process (no isolation), median µs': fmt(median(inProcess)),
        'worker / in-process': `${fmt(median(warm) / median(inProcess))}×`,
      });
    }
  } finally {
    await calculator.close();
  }

  const cold: number[] = [];
  for (let i = 0; i < coldStarts; i += 1) {
    const fresh = new CalculatorPool({ workers: 1 }); // one process, as after a kill
    const started = performance.now();
    await fresh.calculate('5 km to mi');
    cold.push((performance.now() - started) * 1_000);
    await fresh.close();
  }
  const typicalWarm = median(warmMedians);
  rows.push({
    case: 'cold worker: start + first call',
    'warm worker, median µs': fmt(median(cold), 0),
    'warm worker, p95 µs': fmt(percentile(cold, 95), 0),
    'in-process (no isolation), median µs': '',
    'worker / in-process': `${fmt(median(cold) / typicalWarm, 0)}× a warm call`,
  });
  return {
    name: 'Calculator: cost per call with the worker kept warm',
    rows,
    notes: [
      `${calls} calls per expression after ${warmup} warm-up calls; cold start is the median of ${coldStarts}. ` +
        `Measured under ${process.execArgv.some((a) => a.includes('tsx')) || import.meta.url.endsWith('.ts') ? 'tsx (the worker loads tsx too, which a build does not)' : 'compiled JavaScript'}.`,
    ],
  };
}

/** Minutes of work if nothing stopped it: every call runs into the pool's 2 s limit and costs a worker. */
const SLOW = 'factorial(bignumber(1e7))';

interface LoadRun {
  times: number[];
  refused: number;
  slowCalls: number;
}

/**
 * Normal calculations arriving every `intervalMs` for `durationMs` (open loop, as from many members),
 * each timed from the call to its answer, while `slowCaller` says whether another caller runs 2-second
 * expressions back to back on the same pool.
 */
async function normalCallsBeside(workers: number, slowCaller: boolean, durationMs: number, intervalMs: number): Promise<LoadRun> {
  const pool = new CalculatorPool({ workers });
  await pool.warm();
  const run: LoadRun = { times: [], refused: 0, slowCalls: 0 };
  let stop = false;
  const slow = (async () => {
    while (slowCaller && !stop) {
      await pool.calculate(SLOW).catch(() => undefined);
      run.slowCalls += 1;
    }
  })();
  const pending: Array<Promise<void>> = [];
  const end = performance.now() + durationMs;
  for (let i = 0; performance.now() < end; i += 1) {
    const started = performance.now();
    pending.push(
      pool.calculate(EXPRESSIONS[i % EXPRESSIONS.length]!).then(
        () => void run.times.push(performance.now() - started),
        () => void (run.refused += 1),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  stop = true;
  await Promise.all(pending);
  await pool.close(); // ends the slow caller's call in flight
  await slow;
  return run;
}

/**
 * The pool's point: a normal calculation's latency while another caller runs 2-second expressions back
 * to back, on a pool of 2 workers against one process (the calculator before the pool), in one run.
 */
export async function benchCalculatorPool(options: { durationMs?: number; intervalMs?: number } = {}): Promise<BenchSection> {
  const durationMs = options.durationMs ?? 20_000;
  const intervalMs = options.intervalMs ?? 100;
  const cases: Array<[label: string, workers: number, slowCaller: boolean]> = [
    ['1 worker (single process, before the pool), nobody else busy', 1, false],
    ['1 worker (single process, before the pool), beside 2 s expressions (baseline)', 1, true],
    ['2 workers (the pool, default), beside 2 s expressions', 2, true],
    ['3 workers, beside 2 s expressions', 3, true],
  ];
  const runs = [];
  for (const [label, workers, slowCaller] of cases) {
    runs.push({ label, run: await normalCallsBeside(workers, slowCaller, slowCaller ? durationMs : durationMs / 4, intervalMs) });
  }
  const baseline = runs[1]!.run;
  const rows: BenchSection['rows'] = runs.map(({ label, run }) => ({
    case: label,
    calls: run.times.length,
    'p50 ms': fmt(median(run.times), 2),
    'p99 ms': fmt(percentile(run.times, 99), 2),
    'max ms': fmt(Math.max(...run.times), 2),
    'p50 ratio': `${fmt(median(run.times) / median(baseline.times), 4)}×`,
    'p99 ratio': `${fmt(percentile(run.times, 99) / percentile(baseline.times, 99), 4)}×`,
    'turned away': run.refused,
    '2 s expressions': run.slowCalls,
  }));
  return {
    name: 'Calculator pool: a normal calculation beside 2-second expressions',
    rows,
    notes: [
      `A normal calculation (${EXPRESSIONS.map((e) => `\`${e}\``).join(', ')} in turn) every ${intervalMs} ms for ` +
        `${durationMs / 1000} s (${durationMs / 4000} s when nobody else is busy), timed from the call to the answer, queue ` +
        `wait included; another caller meanwhile runs \`${SLOW}\` back to back, each stopped at the 2 s limit and its worker ` +
        'replaced. Ratios are against the single process beside the same load. With 2 workers a normal call waits only ' +
        'when a killed worker\'s replacement is not ready yet (it starts at a quarter of the limit, and the next 2 s ' +
        'expression takes whichever worker is free): no wait when a start takes well under 1.5 s (about 0.35 s on a quiet ' +
        'machine), waits when the machine is so loaded that a start takes seconds. A third worker covers that window.',
    ],
  };
}
