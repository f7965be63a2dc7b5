/**
 * The `plot` tool: the model passes a Vega-Lite spec with its data inline; the chart is drawn as a PNG
 * in the plot worker and handed back as an attachment, which the thread shows at that step and with
 * the answer (the terminal writes it to a file). The model is told the chart was posted and its size,
 * never the image itself.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../src/agent/tool.js';
import { ToolError } from '../../src/errors.js';
import type { PlotRenderer } from './renderer.js';
import { DEFAULT_SPEC_LIMITS, specProblem, type SpecLimits } from './spec-check.js';

// Loose: in the text protocol `Action: plot: {...}` gives the spec itself as the arguments (see tool-arguments.ts).
const parameters = z
  .object({
    spec: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .optional()
      .describe('A Vega-Lite spec (object or JSON text) with the data inline in data.values.'),
  })
  .loose();

/** The `plot` tool over a renderer (its worker belongs to the toolbox). */
export function createPlotTool(renderer: PlotRenderer, limits: SpecLimits = DEFAULT_SPEC_LIMITS): ToolDefinition<z.infer<typeof parameters>> {
  return defineTool({
    name: 'plot',
    description:
      `Draw a chart as a PNG posted in the conversation, from a Vega-Lite spec with the data inline (data.values; bar, line, point or area; at most ${limits.maxRows.toLocaleString('en-US')} rows; no URLs). ` +
      'Title the axes. Use it when numbers are easier to see than to read.',
    parameters,
    textParameter: 'spec',
    aliases: ['chart', 'draw_chart', 'vega_lite', 'vegalite'],
    examples: ['{"data":{"values":[{"city":"Oslo","pop":0.7},{"city":"Bergen","pop":0.29}]},"mark":"bar","encoding":{"x":{"field":"city","type":"nominal"},"y":{"field":"pop","type":"quantitative","title":"Population (millions)"}}}'],
    // Rendering may take a few seconds on a busy host; the worker's own limit stops it first.
    timeoutMs: renderer.limits.timeoutMs + 5_000,
    async run(args, ctx) {
      const spec = readSpec(args);
      const problem = specProblem(spec, limits);
      if (problem) throw new ToolError(`The chart was not drawn: ${problem}`);
      const chart = await renderer.render(spec as Record<string, unknown>, ctx.signal);
      const title = titleOf(spec as Record<string, unknown>);
      const name = `${slug(title) || 'chart'}.png`;
      const kb = Math.max(1, Math.round(chart.png.length / 1024));
      return {
        output: `The chart was drawn and posted in the conversation as ${name} (${chart.width}×${chart.height} px, ${kb} KB). People can see it; do not repeat its data as an image or a link.`,
        attachments: [{ name, contentType: 'image/png', data: chart.png, description: title ? `Chart: ${title}`.slice(0, 1_000) : 'Chart' }],
      };
    },
  });
}

/** The spec from the arguments: `spec` as an object or JSON text, or the arguments themselves (text protocol). */
function readSpec(args: Record<string, unknown>): unknown {
  const { spec, ...rest } = args;
  let parsed: unknown = spec === undefined ? rest : spec;
  if (typeof spec === 'string') {
    try {
      parsed = JSON.parse(spec);
    } catch (error) {
      throw new ToolError(`The spec is not valid JSON (${(error as Error).message}). Send it as a JSON object.`);
    }
  }
  // Models often name the schema's address; it is never loaded, so it is dropped rather than refused as a URL.
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const { $schema: _schema, ...withoutSchema } = parsed as Record<string, unknown>;
    return withoutSchema;
  }
  return parsed;
}

function titleOf(spec: Record<string, unknown>): string {
  const title = spec.title;
  if (typeof title === 'string') return title;
  if (typeof title === 'object' && title !== null && typeof (title as { text?: unknown }).text === 'string') return (title as { text: string }).text;
  return '';
}

function slug(text: string): string {
  return text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40);
}
