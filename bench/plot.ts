/**
 * What drawing a chart costs: a 1,000-point line chart through the warm plot worker (median and p95),
 * against baselines measured in the same run: the same drawing in this process (no isolation: the
 * floor), a 10-point chart through the worker (what the worker hop costs on its own), and a cold worker
 * started for the chart (after a kill). The worker's memory: its heap after each chart and its peak RSS.
 */
import fs from 'node:fs';
import { chartFontFiles } from '../tools/plot/fonts.js';
import { renderChart } from '../tools/plot/render.js';
import { PlotRenderer } from '../tools/plot/renderer.js';
import { fmt, median, percentile, type BenchSection } from './stats.js';

const lineChart = (points: number) => ({
  data: { values: Array.from({ length: points }, (_, i) => ({ day: i, visitors: Math.round(500 + 200 * Math.sin(i / 30) + (i % 17) * 5) })) },
  mark: 'line',
  encoding: { x: { field: 'day', type: 'quantitative', title: 'Day' }, y: { field: 'visitors', type: 'quantitative', title: 'Visitors' } },
});

async function timeEach(count: number, call: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times;
}

/** Peak resident memory of a process in MB (Linux /proc); undefined elsewhere. */
function peakRssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The plot bench. */
export async function benchPlot(options: { warmup?: number; charts?: number; coldStarts?: number } = {}): Promise<BenchSection> {
  const warmup = options.warmup ?? 5;
  const charts = options.charts ?? 30;
  const coldStarts = options.coldStarts ?? 3;
  const big = lineChart(1_000);
  const small = lineChart(10);
  const fonts = chartFontFiles();
  const renderer = new PlotRenderer();
  const heaps: number[] = [];
  let rss: number | undefined;
  let worker: number[] = [];
  let inProcess: number[] = [];
  let tiny: number[] = [];
  try {
    await timeEach(warmup, () => renderer.render(big));
    await timeEach(warmup, () => renderChart(big, fonts));
    // Interleaved halves, so a burst of machine noise hits every side alike.
    for (let half = 0; half < 2; half += 1) {
      worker = worker.concat(await timeEach(charts / 2, async () => heaps.push((await renderer.render(big)).heapMb)));
      inProcess = inProcess.concat(await timeEach(charts / 2, () => renderChart(big, fonts)));
      tiny = tiny.concat(await timeEach(charts / 2, () => renderer.render(small)));
    }
    rss = peakRssMb(renderer.pid);
  } finally {
    await renderer.close();
  }
  const cold: number[] = [];
  for (let i = 0; i < coldStarts; i += 1) {
    const fresh = new PlotRenderer();
    cold.push(...(await timeEach(1, () => fresh.render(big))));
    await fresh.close();
  }
  const row = (name: string, times: number[], versus: string) => ({
    case: name,
    'median ms': fmt(median(times)),
    'p95 ms': fmt(percentile(times, 95)),
    'vs in-process': versus,
  });
  return {
    name: 'Charts: drawing a 1,000-point line chart',
    rows: [
      row('1,000-point line chart, warm worker', worker, `${fmt(median(worker) / median(inProcess), 2)}×`),
      row('same chart in-process (no isolation)', inProcess, '1×'),
      row('10-point line chart, warm worker', tiny, `${fmt(median(tiny) / median(inProcess), 2)}×`),
      row('cold worker: start + 1,000-point chart', cold, `${fmt(median(cold) / median(inProcess), 1)}×`),
    ],
    notes: [
      `${charts} charts per case after ${warmup} warm-up charts; cold start is the median of ${coldStarts}. PNG at twice the layout size (736×694 px for this chart).`,
      `Worker memory: heap after a 1,000-point chart ${fmt(median(heaps), 0)} MB (median; max ${fmt(Math.max(...heaps), 0)} MB) of its 256 MB limit; ` +
        `peak resident set ${rss === undefined ? 'not measured (needs Linux /proc)' : `${fmt(rss, 0)} MB`} (the process, vega and resvg included).`,
    ],
  };
}
