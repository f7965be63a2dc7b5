/** `npm run bench [section ...]`: benchmark sections as markdown tables, with ratios against in-run baselines. */
import { benchEngine } from './engine.js';
import { benchDiscord } from './discord.js';
import { benchCalculator } from './calculator.js';
import { benchState } from './state.js';
import { benchDeploy } from './deploy.js';
import { printSection, type BenchSection } from './stats.js';

const only = process.argv.slice(2);
const sections: Array<[string, () => Promise<BenchSection>]> = [
  ['engine', () => benchEngine()],
  ['calculator', () => benchCalculator()],
  ['state', () => benchState()],
  ['discord', () => benchDiscord()],
  ['deploy', () => benchDeploy()],
];

for (const [name, run] of sections) {
  if (only.length && !only.includes(name)) continue;
  printSection(await run());
}
process.exit(0);
