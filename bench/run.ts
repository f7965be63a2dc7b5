/** `npm run bench [section ...]`: benchmark sections as markdown tables, with ratios against in-run baselines. */
import { benchEngine } from './engine.js';
import { benchEngineAlone } from './engine-alone.js';
import { benchFirstDelta } from './first-delta.js';
import { benchDiscord } from './discord.js';
import { benchCalculator, benchCalculatorPool } from './calculator.js';
import { benchCalculatorStops } from './calculator-stops.js';
import { benchHtmlText } from './html-text.js';
import { benchHtmlReader } from './html-reader.js';
import { benchState } from './state.js';
import { benchLimits } from './limits.js';
import { benchKnowledge } from './knowledge.js';
import { benchKnowledgeMeaning } from './knowledge-meaning.js';
import { benchDeploy } from './deploy.js';
import { benchTeam } from './team.js';
import { benchKnowledgeOffer } from './knowledge-offer.js';
import { benchPlot } from './plot.js';
import { benchMcp } from './mcp.js';
import { benchScale } from './scale.js';
import { benchMemory } from './memory.js';
import { benchSchedules } from './schedules.js';
import { benchEval } from './eval.js';
import { benchPdfBomb } from './pdf-bomb.js';
import { benchSkills } from './skills.js';
import { benchConsole } from './console.js';
import { printSection, type BenchSection } from './stats.js';

const only = process.argv.slice(2);
const sections: Array<[string, () => Promise<BenchSection | BenchSection[]>]> = [
  ['engine', () => benchEngine()],
  ['engine-alone', () => benchEngineAlone()],
  ['first-delta', () => benchFirstDelta()],
  ['calculator', () => benchCalculator()],
  ['calculator-pool', () => benchCalculatorPool()],
  ['calculator-stops', () => benchCalculatorStops()],
  ['plot', () => benchPlot()],
  ['html-text', () => benchHtmlText()],
  ['html-reader', () => benchHtmlReader()],
  ['state', () => benchState()],
  ['limits', () => benchLimits()],
  ['knowledge', () => benchKnowledge()],
  ['knowledge-meaning', () => benchKnowledgeMeaning()],
  ['knowledge-offer', () => benchKnowledgeOffer()],
  ['memory', () => benchMemory()],
  ['mcp', () => benchMcp()],
  ['discord', () => benchDiscord()],
  ['team', () => benchTeam()],
  ['deploy', () => benchDeploy()],
  ['scale', () => benchScale()],
  ['schedules', () => benchSchedules()],
  ['eval', () => benchEval()],
  ['pdf-bomb', () => benchPdfBomb()],
  ['skills', () => benchSkills()],
  ['console', () => benchConsole()],
];

for (const [name, run] of sections) {
  if (only.length && !only.includes(name)) continue;
  for (const section of [await run()].flat()) printSection(section);
}
process.exit(0);
