/**
 * The results of an evaluation as data (the JSON file) and as markdown (the report file, and what the
 * terminal shows at the end): one column per model, side by side, then every failed case with its reason.
 */
import { cleanText } from '../agent/clean-text.js';
import { formatUsd, NANO_USD_PER_USD } from '../state/usage/model-prices.js';
import type { CaseResult } from './run-case.js';
import type { ModelSummary, Tally } from './stats.js';

/** Longest answer kept per case in the JSON file. */
const ANSWER_MAX_CHARS = 4_000;

export interface EvalReport {
  suite: string;
  started_at: string;
  duration_ms: number;
  settings: { models: string[]; judge_model: string | null; persona: string | null; tools: string[] | null; repeat: number; concurrency: number; min_pass: number | null };
  /** By model name, in the order the models were given. */
  models: Record<string, ModelSummary & { below_min_pass: boolean }>;
  judge: { model: string; calls: number; tokens: number } | null;
  cases: Array<Record<string, unknown>>;
}

/** One result as the JSON file keeps it. */
export function caseRecord(r: CaseResult): Record<string, unknown> {
  const answer = r.answer.length > ANSWER_MAX_CHARS ? `${r.answer.slice(0, ANSWER_MAX_CHARS)}…` : r.answer;
  return {
    id: r.case.name,
    line: r.case.line,
    model: r.model,
    repeat: r.repeat,
    tags: r.case.tags ?? [],
    status: r.status,
    reason: r.reason,
    question: r.case.question,
    answer,
    tools: r.tools,
    steps: r.steps,
    tokens: r.usage.totalTokens,
    latency_ms: Math.round(r.latencyMs),
    ...(r.judged ? { judge: r.judged } : {}),
    ...(r.case.meta ? { meta: r.case.meta } : {}),
  };
}

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)}%`);
/** Table cells hold names and tags from the suite: no pipes or newlines that would break the table. */
const cell = (text: string) => cleanText(text).replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const tallyCell = (t: Tally | undefined) => (t ? `${percent(t.rate)} (${t.passed}/${t.passed + t.failed}${t.errors ? `, ${t.errors} error${t.errors > 1 ? 's' : ''}` : ''})` : '—');

/** The report as markdown. */
export function markdownReport(report: EvalReport): string {
  const models = Object.values(report.models);
  const row = (label: string, values: string[]) => `| ${label} | ${values.join(' | ')} |`;
  const lines = [
    `# Evaluation: ${cell(report.suite)}`,
    '',
    `${report.started_at}, ${(report.duration_ms / 1000).toFixed(1)} s; ${report.settings.repeat > 1 ? `each case ${report.settings.repeat} times, ` : ''}concurrency ${report.settings.concurrency}` +
      `${report.settings.judge_model ? `; judge ${cell(report.settings.judge_model)}` : ''}${report.settings.persona ? `; persona ${cell(report.settings.persona)}` : ''}` +
      `${report.settings.tools ? `; tools ${report.settings.tools.join(', ')}` : ''}.`,
    '',
    row('', models.map((m) => `**${cell(m.model)}**`)),
    row('---', models.map(() => '---')),
    row('pass rate', models.map((m) => `${percent(m.rate)} (${m.passed}/${m.passed + m.failed})${m.below_min_pass ? ` ❌ below ${percent(report.settings.min_pass)}` : ''}`)),
    row('95% interval', models.map((m) => (m.interval ? `${percent(m.interval[0])} – ${percent(m.interval[1])}` : '—'))),
    row('errors (not counted)', models.map((m) => String(m.errors))),
    row('tokens', models.map((m) => `${m.tokens.total} (${m.tokens.prompt} in, ${m.tokens.completion} out)`)),
    row('cost', models.map((m) => (m.cost.priced ? formatUsd(Math.round(m.cost.usd * NANO_USD_PER_USD)) : '$0 (no price: MODEL_PRICES)'))),
    row('latency p50 / p95', models.map((m) => `${m.latency_ms.p50} / ${m.latency_ms.p95} ms`)),
    row('steps mean / p95', models.map((m) => `${m.steps.mean} / ${m.steps.p95}`)),
  ];
  const tags = [...new Set(models.flatMap((m) => Object.keys(m.tags)))].sort();
  if (tags.length) {
    lines.push('', '## By tag', '', row('tag', models.map((m) => `**${cell(m.model)}**`)), row('---', models.map(() => '---')));
    for (const tag of tags) lines.push(row(cell(tag), models.map((m) => tallyCell(m.tags[tag]))));
  }
  if (report.judge) lines.push('', `The judge (${cell(report.judge.model)}) was asked ${report.judge.calls} times and used ${report.judge.tokens} tokens (not counted above).`);
  for (const [title, status] of [['Failed', 'fail'], ['Errors (not counted in the rate)', 'error']] as const) {
    const listed = report.cases.filter((c) => c.status === status);
    if (!listed.length) continue;
    lines.push('', `## ${title}`, '');
    for (const c of listed) {
      const repeat = report.settings.repeat > 1 ? `, repeat ${Number(c.repeat) + 1}` : '';
      lines.push(`- **${cell(String(c.id))}** (${cell(String(c.model))}, line ${c.line}${repeat}): ${cell(String(c.reason))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
