/**
 * A bar chart as inline SVG, drawn on the server: no script, and the numbers are also in the table below
 * it for screen readers and for reading them exactly.
 */
import { html, type Html } from '../html.js';

/** Bars for `values` (one per label), scaled to the largest; `title` names the chart for assistive technology. */
export function barChart(title: string, points: ReadonlyArray<{ label: string; value: number }>): Html {
  const width = 600;
  const height = 160;
  const top = Math.max(1, ...points.map((p) => p.value));
  const step = width / Math.max(1, points.length);
  const bars = points.map((p, i) => {
    const h = Math.round((p.value / top) * (height - 24));
    return html`<rect class="bar" x="${(i * step + 1).toFixed(1)}" y="${height - 14 - h}" width="${Math.max(1, step - 2).toFixed(1)}" height="${h}"><title>${p.label}: ${p.value.toLocaleString('en-US')}</title></rect>`;
  });
  const first = points[0]?.label ?? '';
  const last = points.at(-1)?.label ?? '';
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}"><title>${title}</title>
<line class="axis" x1="0" y1="${height - 14}" x2="${width}" y2="${height - 14}"></line>${bars}
<text x="0" y="${height - 2}">${first}</text><text x="${width}" y="${height - 2}" text-anchor="end">${last}</text>
<text x="0" y="10">${top.toLocaleString('en-US')}</text></svg>`;
}
