/**
 * `plot`: real charts drawn by the worker process (vega, vega-lite, resvg, the bundled font), checked
 * by decoding the PNG; specs that would load URLs refused before any drawing; pathological specs
 * stopped at the worker's limits, after which the next chart still draws.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../src/agent/tool.js';
import { decodeArguments } from '../../src/agent/tool-arguments.js';
import { createPlotTool } from '../../tools/plot/plot.js';
import { PlotRenderer } from '../../tools/plot/renderer.js';
import { decodePng, hasColour, inkShare } from './helpers/png.js';
import { toolContext } from './helpers/tool-context.js';

const populations = {
  title: 'Nordic capitals',
  data: { values: [{ city: 'Oslo', pop: 0.71 }, { city: 'Stockholm', pop: 0.98 }, { city: 'Copenhagen', pop: 0.66 }, { city: 'Helsinki', pop: 0.67 }] },
  mark: 'bar',
  encoding: { x: { field: 'city', type: 'nominal', title: 'Capital city' }, y: { field: 'pop', type: 'quantitative', title: 'Population (millions)' } },
};
const line = (points: number) => ({
  data: { values: Array.from({ length: points }, (_, i) => ({ day: i, value: Math.sin(i / 40) * 100 + i / 10 })) },
  mark: 'line',
  encoding: { x: { field: 'day', type: 'quantitative', title: 'Day' }, y: { field: 'value', type: 'quantitative', title: 'Visitors' } },
});
/** Vega expressions can make huge arrays from three rows: only the worker's limits can stop this. */
const exploding = (size: string) => ({
  data: { values: [{ a: 1 }] },
  transform: [{ calculate: `sequence(0, ${size})`, as: 's' }, { flatten: ['s'] }],
  mark: 'point',
  encoding: { x: { field: 's', type: 'quantitative' } },
});

describe('plot', () => {
  const renderer = new PlotRenderer();
  const tool = createPlotTool(renderer);
  afterAll(() => renderer.close());

  it('draws a bar chart as a PNG with the bundled font, its axis titles in the SVG, and the same bytes every time', async () => {
    const chart = await renderer.render(populations);
    const image = decodePng(chart.png);
    expect([image.width, image.height]).toEqual([chart.width, chart.height]);
    expect(image.width).toBeGreaterThan(200);
    expect(image.height).toBeGreaterThan(200);
    expect(inkShare(image)).toBeGreaterThan(0.02);
    expect(inkShare(image)).toBeLessThan(0.8);
    expect(hasColour(image)).toBe(true);
    expect(chart.svg).toContain('>Population (millions)</text>');
    expect(chart.svg).toContain('>Capital city</text>');
    expect(chart.svg).toContain('font-family="DejaVu Sans"');
    const again = await renderer.render(populations);
    expect(Buffer.from(again.png).equals(Buffer.from(chart.png))).toBe(true);
  }, 60_000);

  it('hands the chart back as an attachment and tells the model its name and size, never the image', async () => {
    const result = (await tool.run({ spec: populations }, toolContext())) as ToolOutput;
    const [file] = result.attachments!;
    expect(file).toMatchObject({ name: 'nordic-capitals.png', contentType: 'image/png', description: 'Chart: Nordic capitals' });
    const image = decodePng(file!.data);
    expect(result.output).toBe(`The chart was drawn and posted in the conversation as nordic-capitals.png (${image.width}×${image.height} px, ${Math.round(file!.data.length / 1024)} KB). People can see it; do not repeat its data as an image or a link.`);
    expect(result.output.length).toBeLessThan(300);
  }, 60_000);

  it('takes the spec as JSON text, or as the arguments themselves (the text protocol), and ignores $schema', async () => {
    const asText = (await tool.run({ spec: JSON.stringify(line(50)) }, toolContext())) as ToolOutput;
    expect(asText.attachments![0]!.name).toBe('chart.png');
    // `Action: plot: {...}` in the text protocol: the engine reads the JSON object as the arguments.
    const decoded = decodeArguments(tool, { kind: 'text', text: JSON.stringify({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...line(50) }) });
    if (!('args' in decoded)) throw new Error(decoded.error);
    const bare = (await tool.run(decoded.args as never, toolContext())) as ToolOutput;
    expect(decodePng(bare.attachments![0]!.data).width).toBeGreaterThan(100);
  }, 60_000);

  it.each([
    ['a remote data URL', { data: { url: 'https://example.com/data.csv' }, mark: 'bar' }, /spec\.data\.url: charts cannot load data or images from a URL/],
    ['a data: URL', { data: { url: 'data:text/csv;base64,YSxiCjEsMg==' }, mark: 'bar' }, /spec\.data\.url: charts cannot load/],
    ['a data: URL hidden in the values', { data: { values: [{ img: 'data:image/png;base64,iVBORw0KGgo=' }] }, mark: 'point' }, /spec\.data\.values\[0\]\.img is a URL/],
    ['an image mark', { data: { values: [{ a: 1 }] }, mark: { type: 'image' }, encoding: {} }, /image mark loads pictures from URLs/],
    ['a link', { data: { values: [{ a: 1 }] }, mark: 'point', encoding: { href: { field: 'a' } } }, /spec\.encoding\.href: charts cannot load/],
    ['a lookup that loads', { data: { values: [{ a: 1 }] }, transform: [{ lookup: 'a', from: { data: { url: '//example.com/x.json' }, key: 'a' } }], mark: 'point' }, /from\.data\.url/],
    ['too many rows', line(5_001), /more than 5,000 data rows/],
    ['a huge sequence', { data: { sequence: { start: 0, stop: 1e9 } }, mark: 'point' }, /more than 5,000 data rows/],
    ['an enormous width', { ...populations, width: 50_000 }, /spec\.width is 50000; at most 2000/],
    ['no inline data', { mark: 'bar' }, /no inline data/],
  ])('refuses %s with the reason, drawing nothing', async (_name, spec, reason) => {
    const restarts = renderer.restarts;
    const error = await tool.run({ spec }, toolContext()).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^The chart was not drawn: /);
    expect((error as Error).message).toMatch(reason);
    expect(renderer.restarts).toBe(restarts);
  });

  it('stops a spec that explodes in memory at the worker\'s heap limit, and draws the next chart with a fresh worker', async () => {
    // A time limit far away, so a loaded machine cannot make this a timeout instead.
    const patient = new PlotRenderer({ timeoutMs: 60_000 });
    const plot = createPlotTool(patient);
    try {
      const error = await plot.run({ spec: exploding('3e6') }, toolContext()).catch((e: Error) => e);
      expect((error as Error).message).toMatch(/needed more than the renderer's 256 MB of memory and was stopped/);
      expect(patient.restarts).toBe(1);
      const next = (await plot.run({ spec: populations }, toolContext())) as ToolOutput;
      expect(inkShare(decodePng(next.attachments![0]!.data))).toBeGreaterThan(0.02);
    } finally {
      await patient.close();
    }
  }, 120_000);

  it('stops a slow spec at its time limit', async () => {
    const quick = new PlotRenderer({ timeoutMs: 400 });
    try {
      await quick.render(line(10)); // a warm worker, so the limit measures the drawing alone
      const error = await quick.render(exploding('2e5')).catch((e: Error) => e);
      expect((error as Error).message).toBe('The chart took longer than 0.4 s to draw and was stopped. Use fewer data points or simpler transforms.');
      expect(quick.restarts).toBe(1);
    } finally {
      await quick.close();
    }
  }, 60_000);
});
