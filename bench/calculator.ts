/**
 * What a `calculate` call costs with the worker kept warm, against two in-run baselines: the same
 * engine called in-process (no thread hop, no kill switch: the floor), and a cold worker started for
 * the call (what a worker per call, or a worker after a kill, would cost every time).
 */
import { Calculator } from '../tools/calculator/pool.js';
import { createCalculatorEngine } from '../tools/calculator/engine.js';
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
  const engine = createCalculatorEngine();
  const calculator = new Calculator();
  await calculator.warm();
  const rows: BenchSection['rows'] = [];
  const warmMedians: number[] = [];
  try {
    for (const expression of EXPRESSIONS) {
      await timeEach(warmup, () => calculator.calculate(expression));
      await timeEach(warmup, () => engine.calculate(expression));
      // Interleaved halves, so a burst of machine noise hits both sides alike.
      const warm = [...(await timeEach(calls / 2, () => calculator.calculate(expression)))];
      const inProcess = [...(await timeEach(calls / 2, () => engine.calculate(expression)))];
      warm.push(...(await timeEach(calls / 2, () => calculator.calculate(expression))));
      inProcess.push(...(await timeEach(calls / 2, () => engine.calculate(expression))));
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
    const fresh = new Calculator();
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
