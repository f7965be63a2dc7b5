/**
 * Entry point of the plot worker process: loads vega, vega-lite and resvg once, then draws one chart
 * per message. The host kills this process when a chart takes too long or its heap overflows, so
 * nothing here defends against slowness; it holds no secrets (its environment is empty) and has no
 * fetch, and the renderer's loader refuses every load.
 */
import { loadRenderer, renderChart, type RenderedChart } from './render.js';

/** What the host sends: the spec to draw (already checked), and the font files to draw it with. */
export interface PlotRequest {
  id: number;
  spec: Record<string, unknown>;
  fonts: string[];
}

/** What the worker answers. `heapMb` is its heap after the chart, for the bench. */
export type PlotReply =
  | { type: 'ready' }
  | { type: 'reply'; id: number; ok: true; chart: RenderedChart; heapMb: number }
  | { type: 'reply'; id: number; ok: false; message: string; heapMb: number };

if (!process.send) throw new Error('the plot worker must run as a child process with an IPC channel');
// The host going away (a crash, kill -9) must not leave this process behind.
process.on('disconnect', () => process.exit(0));
// Nothing in a chart may reach the network, even if a spec slipped a URL past the check.
delete (globalThis as { fetch?: unknown }).fetch;

const send = (reply: PlotReply) => process.send?.(reply);
const heapMb = () => Math.round(process.memoryUsage().heapUsed / 1_048_576);

process.on('message', (request: PlotRequest) => {
  renderChart(request.spec, request.fonts).then(
    (chart) => send({ type: 'reply', id: request.id, ok: true, chart, heapMb: heapMb() }),
    (error: unknown) => send({ type: 'reply', id: request.id, ok: false, message: error instanceof Error ? error.message : String(error), heapMb: heapMb() }),
  );
});

loadRenderer().then(
  () => send({ type: 'ready' }),
  (error: unknown) => {
    process.stderr.write(`plot worker could not load its libraries: ${String(error)}\n`);
    process.exit(1);
  },
);
