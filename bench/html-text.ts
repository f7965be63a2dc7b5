/**
 * HTML to text stays linear: the cost per kilobyte of `htmlToText` on hostile markup at 1 MB against the
 * same markup at 256 KB (a linear algorithm gives about 1.0; a quadratic one about 4), with an ordinary
 * article as the baseline for cost per kilobyte.
 */
import { htmlToText } from '../src/knowledge/parse/html-text.js';
import { fmt, median, type BenchSection } from './stats.js';

const PARAGRAPH = '<p>Caf&eacute; prices rose by &frac12; &rarr; see the <a href="/x">table</a> &amp; notes.</p>';

/** Patterns repeated to the wanted size; each is a way a careless scanner or decoder goes quadratic. */
const CASES: Array<[name: string, unit: string]> = [
  ['ordinary article (baseline)', PARAGRAPH],
  ['unclosed nested divs with references', '<div>&frac12 &CounterClockwiseContourIntegra &#x41; x'],
  ['unclosed `<script`, `<!--`, `<style>`', '<script<!--<style>'],
  ['bare ampersands', '&&&&&&&&&&&&&&&&'],
  ['numeric references that never end', '&#x&#9999&#'],
];

/** CPU time rather than wall time: other processes on a shared machine then move the figures less. */
function microsPerKb(html: string, rounds: number): number {
  const times: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const started = process.cpuUsage();
    htmlToText(html);
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / (html.length / 1_024));
  }
  return median(times);
}

/** The html-text bench: µs per KB at 256 KB and 1 MB for each pattern, and the ratio between them. */
export async function benchHtmlText(options: { rounds?: number } = {}): Promise<BenchSection> {
  const rounds = options.rounds ?? 9;
  const sized = (unit: string, bytes: number) => `<main>${unit.repeat(Math.ceil(bytes / unit.length))}</main>`;
  const rows: BenchSection['rows'] = [];
  let baseline = 0;
  for (const [name, unit] of CASES) {
    microsPerKb(sized(unit, 64 * 1_024), 2); // warm-up
    const small = microsPerKb(sized(unit, 256 * 1_024), rounds);
    const large = microsPerKb(sized(unit, 1_024 * 1_024), rounds);
    if (!baseline) baseline = large;
    rows.push({
      markup: name,
      'CPU µs per KB at 256 KB': fmt(small),
      'CPU µs per KB at 1 MB': fmt(large),
      '1 MB / 256 KB per KB (1.0 = linear)': fmt(large / small, 2),
      'vs ordinary article at 1 MB': `${fmt(large / baseline, 2)}×`,
    });
  }
  return {
    name: 'HTML to text: cost per kilobyte as hostile markup grows',
    rows,
    notes: [`Median of ${rounds} runs per size. read_url reads at most 1 MB of a page.`],
  };
}
