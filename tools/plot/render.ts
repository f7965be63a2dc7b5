/**
 * Draw a checked Vega-Lite spec: Vega-Lite compiles it to Vega, Vega lays it out headless and writes
 * SVG (no browser, no canvas), and resvg rasterises the SVG to PNG with the bundled DejaVu Sans, so a
 * chart looks the same on every host. Runs inside the plot worker process (see worker.ts); vega and
 * vega-lite are ES modules only, so they are imported dynamically (the worker may run as CommonJS).
 */
/** The chart as PNG, and the SVG it was drawn from (tests read the axis titles in it). */
export interface RenderedChart {
  png: Uint8Array;
  width: number;
  height: number;
  svg: string;
}

/** The font every chart uses: DejaVu Sans from the dejavu-fonts-ttf package (see fonts.ts). */
export const CHART_FONT = 'DejaVu Sans';

/** Drawn at twice the layout size for sharp text, but never past this many pixels a side. */
const SCALE = 2;
export const MAX_PNG_SIDE = 2_400;

/** Everything that could fetch is refused: the spec check keeps URLs out; this is the second wall. */
const NO_LOADING = async () => {
  throw new Error('charts cannot load anything: put the data inline');
};

let modules: Promise<{ vega: typeof import('vega'); compile: typeof import('vega-lite').compile; Resvg: typeof import('@resvg/resvg-js').Resvg }> | undefined;

/** Load the libraries once (the worker does it at start so the first chart is fast). */
export function loadRenderer() {
  modules ??= Promise.all([import('vega'), import('vega-lite'), import('@resvg/resvg-js')]).then(([vega, vl, resvg]) => ({
    vega,
    compile: vl.compile,
    Resvg: resvg.Resvg,
  }));
  return modules;
}

/** Render a spec that passed `specProblem`. Throws with a message for the model when Vega refuses it. */
export async function renderChart(spec: Record<string, unknown>, fonts: string[]): Promise<RenderedChart> {
  const { vega, compile, Resvg } = await loadRenderer();
  const config = { font: CHART_FONT, background: 'white', ...(spec.config as object | undefined) };
  const compiled = compile({ ...spec, config } as never).spec;
  const loader = vega.loader();
  loader.load = NO_LOADING;
  loader.sanitize = NO_LOADING;
  loader.http = NO_LOADING;
  loader.file = NO_LOADING;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader });
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  const size = /<svg[^>]*\swidth="([\d.]+)"[^>]*\sheight="([\d.]+)"/.exec(svg);
  const longest = size ? Math.max(Number(size[1]), Number(size[2])) : 0;
  const zoom = longest * SCALE > MAX_PNG_SIDE ? MAX_PNG_SIDE / longest : SCALE;
  const image = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: zoom },
    background: 'white',
    font: { loadSystemFonts: false, fontFiles: fonts, defaultFontFamily: CHART_FONT, sansSerifFamily: CHART_FONT },
  }).render();
  return { png: image.asPng(), width: image.width, height: image.height, svg };
}
