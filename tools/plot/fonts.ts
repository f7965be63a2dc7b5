/**
 * Where the chart font is: DejaVu Sans from the dejavu-fonts-ttf npm package (the Bitstream Vera
 * licence: free to use and ship). Resolved here, in the bot's process, and handed to the plot worker,
 * which loads no system fonts: a chart looks the same on every host.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

/** The TrueType files resvg is given (regular, bold for titles, oblique). */
export function chartFontFiles(): string[] {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  return ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSans-Oblique.ttf'].map((file) => path.join(dir, file));
}
