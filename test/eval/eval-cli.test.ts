/**
 * `npm run eval` end to end: the real CLI process against the local fake model server, through the
 * real engine and tools (eval-runner.test.ts runs the same runner in-process for the finer cases).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeOpenAIServer } from '../fakes/openai-server.js';
import { runScript } from '../fakes/run-script.js';
import { tempDir } from '../state/helpers/targets.js';
import { evalEnv, modelServer, questionOf, writeSuite } from './helpers.js';

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Ten cases: q1-q5 tagged math, q6-q10 tagged time; an answer passes when it says "right". */
const TEN = Array.from({ length: 10 }, (_, i) => ({ id: `q${i + 1}`, question: `question ${i + 1}`, expect: { contains: 'right' }, tags: [i < 5 ? 'math' : 'time'] }));
/** model-a gets questions 8-10 wrong, model-b question 10. */
const wrong: Record<string, number[]> = { 'model-a': [8, 9, 10], 'model-b': [10] };
const byQuestion = (model: string, question: string) => {
  const n = Number(/question (\d+)/.exec(question)?.[1]);
  return { content: wrong[model]?.includes(n) ? 'That is wrong.' : 'That is right.', usage: { prompt: 100, completion: 20 } };
};

// One run at a time, so the order requests reach the server is the schedule's (and the progress lines are fixed).
const ONE_AT_A_TIME = ['--concurrency', '1'];

describe('npm run eval', () => {
  it('runs two models side by side, interleaved, and reports 7 of 10 and 9 of 10 with their tags, tokens and cost; --min-pass 0.8 exits 1 for the first', async () => {
    server = await modelServer(['model-a', 'model-b'], byQuestion);
    const dir = tempDir('eval-cli');
    const suite = writeSuite(dir, TEN);
    const out = path.join(dir, 'out.md');
    // A price for model-a (test names have none built in), so the cost column has something to add up.
    const prices = JSON.stringify({ 'model-a': { input: 1, output: 2 } });
    const { code, stdout, stderr } = await runScript('src/cli/eval.ts', [suite, '--model', 'model-a', '--model', 'model-b', '--min-pass', '0.8', '--report', out, ...ONE_AT_A_TIME], evalEnv(server, { MODEL_PRICES: prices }));
    expect(code).toBe(1);
    // stderr is a pipe here: a plain progress line every ten runs, none of the bar.
    expect(stderr).toBe('10/20 runs: 10 passed, 0 failed, 0 errors\n20/20 runs: 16 passed, 4 failed, 0 errors\n');

    const report = JSON.parse(fs.readFileSync(path.join(dir, 'out.json'), 'utf8'));
    const a = report.models['model-a'];
    const b = report.models['model-b'];
    expect(a).toMatchObject({ passed: 7, failed: 3, errors: 0, total: 10, rate: 0.7, below_min_pass: true });
    expect(b).toMatchObject({ passed: 9, failed: 1, errors: 0, total: 10, rate: 0.9, below_min_pass: false });
    expect(a.tags).toEqual({ math: { passed: 5, failed: 0, errors: 0, total: 5, rate: 1 }, time: { passed: 2, failed: 3, errors: 0, total: 5, rate: 0.4 } });
    expect(b.tags.time).toEqual({ passed: 4, failed: 1, errors: 0, total: 5, rate: 0.8 });
    // Wilson 95% for 7 of 10: 0.397 to 0.892.
    expect(a.interval[0]).toBeCloseTo(0.3968, 3);
    expect(a.interval[1]).toBeCloseTo(0.8922, 3);
    expect(a.tokens).toEqual({ prompt: 1000, completion: 200, total: 1200 });
    // 10 × (100 × $1 + 20 × $2) per million tokens; model-b has no price.
    expect(a.cost).toEqual({ usd: 0.0014, priced: true });
    expect(b.cost).toEqual({ usd: 0, priced: false });
    expect(a.steps).toEqual({ mean: 1, p50: 1, p95: 1 });
    expect(a.latency_ms.p95).toBeGreaterThanOrEqual(a.latency_ms.p50);
    const failed = report.cases.filter((c: { status: string }) => c.status === 'fail');
    expect(failed.map((c: { model: string; id: string }) => `${c.model} ${c.id}`).sort()).toEqual(['model-a q10', 'model-a q8', 'model-a q9', 'model-b q10']);
    expect(failed[0].reason).toBe('the answer does not contain "right"');

    // Interleaved: each case runs on both models back to back, the first to go alternating.
    const order = server.requests.map((r) => `${questionOf(r).replace('question ', 'q')}/${r.body.model}`);
    expect(order.slice(0, 4)).toEqual(['q1/model-a', 'q1/model-b', 'q2/model-b', 'q2/model-a']);

    // The terminal shows the same table and every failure with its reason.
    expect(stdout).toContain('| pass rate | 70.0% (7/10) ❌ below 80.0% | 90.0% (9/10) |');
    expect(stdout).toContain('| time | 40.0% (2/5) | 80.0% (4/5) |');
    expect(stdout).toContain('- **q8** (model-a, line 8): the answer does not contain "right"');
    expect(stdout).toContain(`Report: ${out}`);
    expect(fs.readFileSync(out, 'utf8')).toContain('| cost | $0.0014 | $0 (no price: MODEL_PRICES) |');
  }, 60_000);

  it('exits 2 with the line that is wrong before calling any model, and prints its usage for --help', async () => {
    server = await modelServer(['model-a'], () => ({ content: 'x' }));
    const dir = tempDir('eval-cli-bad');
    const suite = writeSuite(dir, [{ question: 'fine', expect: { contains: 'x' } }, { question: 'bad', expect: { number: { value: 'ten' } } }]);
    const bad = await runScript('src/cli/eval.ts', [suite], evalEnv(server));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${suite}:2: expect.number.value: Invalid input: expected number, received string.`);
    expect(server.requests).toHaveLength(0);
    const help = await runScript('src/cli/eval.ts', ['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run eval -- <suite.jsonl> \[--model A\]/);
  }, 60_000);
});
