/**
 * Evaluation throughput: `npm run eval`'s runner (in-process, as the CLI runs it) over a suite of 600
 * cases against a zero-latency local model server, at concurrency 1 and 8, with one model and with two
 * interleaved. Half the cases call the real calculator (two model calls and a worker round trip), half
 * are answered at once; every case is graded by contains and number checks. Cases per second is runs
 * per wall-clock second, the report files written included.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createCore } from '../src/core.js';
import { runEval } from '../src/eval/main.js';
import { runPool } from '../src/eval/schedule.js';
import { FakeOpenAIServer, type ScriptedReply } from '../test/fakes/openai-server.js';
import { fmt, median, type BenchSection } from './stats.js';

const CASES = 600;
const ROUNDS = 5;

/** A tool call for the calculator cases until its result is in, then an answer quoting it. */
const reply: ScriptedReply = (request) => {
  const messages = request.body.messages;
  const question = String(messages.find((m) => m.role === 'user')?.content);
  const result = messages.find((m) => m.role === 'tool')?.content;
  const n = Number(/(\d+)/.exec(question)?.[1]);
  if (question.startsWith('Compute') && !result) return { toolCalls: [{ name: 'calculate', arguments: { expression: `${n} * 3` } }] };
  return { content: result ? `It is ${String(result).split('\n')[0]}.` : `Answer ${n}.` };
};

function writeSuite(dir: string): string {
  const lines = Array.from({ length: CASES }, (_, n) =>
    n % 2 ? { question: `Compute ${n} times 3`, expect: { number: { value: n * 3 }, tool_called: 'calculate' }, tags: ['calculator'] } : { question: `Say answer ${n}`, expect: { contains: `answer ${n}` }, tags: ['plain'] },
  );
  const file = path.join(dir, 'bench.jsonl');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

/** The baseline: the same questions straight through one core's engine, as many at once, nothing graded or written. */
async function engineAlone(env: Record<string, string>, server: FakeOpenAIServer, concurrency: number): Promise<number> {
  const core = await createCore(loadConfig({ needDiscord: false, dotenvDir: false }, env));
  try {
    const questions = Array.from({ length: CASES }, (_, n) => (n % 2 ? `Compute ${n} times 3` : `Say answer ${n}`));
    server.script(...Array.from({ length: (CASES / 2) * 3 }, () => reply));
    const started = performance.now();
    await runPool(questions, concurrency, async (question) => {
      const run = core.engine.run({ messages: [{ role: 'user', content: question }] });
      for await (const _event of run) {
        // Read every event, as the runner does.
      }
      if ((await run.result).reason !== 'answer') throw new Error('bench baseline run did not answer');
    });
    return CASES / ((performance.now() - started) / 1000);
  } finally {
    await core.close();
  }
}

export async function benchEval(): Promise<BenchSection> {
  const server = await FakeOpenAIServer.start({ models: { object: 'list', data: [{ id: 'bench-a' }, { id: 'bench-b' }] } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-eval-'));
  const suite = writeSuite(dir);
  const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_MODEL: 'bench-a', KEYV_URL: 'memory:', WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php' };
  const once = async (models: string[], concurrency: number): Promise<{ seconds: number; runSeconds: number; runs: number }> => {
    // Exactly the requests a run makes: two for each calculator case, one for each other.
    server.script(...Array.from({ length: (CASES / 2) * 3 * models.length }, () => reply));
    const started = performance.now();
    let out = '';
    const code = await runEval([suite, ...models.flatMap((m) => ['--model', m]), '--concurrency', String(concurrency), '--min-pass', '1', '--report', path.join(dir, 'report.md')], {
      env,
      dotenvDir: false,
      cwd: dir,
      stdout: (text) => void (out += text),
      stderr: { write: () => undefined, isTTY: false },
    });
    const seconds = (performance.now() - started) / 1000;
    // Every case must pass: a bench that graded failures would be measuring something else.
    if (code !== 0) throw new Error(`bench eval run failed (exit ${code}):\n${out.slice(0, 2_000)}`);
    if (server.pending !== 0 || server.failures.length) throw new Error(`bench eval run made ${server.pending ? 'fewer' : 'more'} model calls than its cases need`);
    // The report's own duration: from the first run's start to the last one's end (no start-up, no files).
    const runSeconds = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')).duration_ms / 1000;
    return { seconds, runSeconds, runs: CASES * models.length };
  };
  const rows: BenchSection['rows'] = [];
  try {
    // Warm-up of both (V8 compiles the hot paths over the first few hundred runs, whichever runs them).
    await engineAlone(env, server, 8);
    await once(['bench-a'], 8);
    for (const concurrency of [1, 8]) {
      const base: number[] = [];
      const rates = new Map<number, { whole: number[]; running: number[] }>([[1, { whole: [], running: [] }], [2, { whole: [], running: [] }]]);
      // Interleaved rounds: the baseline and both runner setups in each, so the machine's load hits all three.
      const setups = [['bench-a'], ['bench-a', 'bench-b'], []];
      for (let r = 0; r < ROUNDS; r++) {
        // The order turns each round, so none of the three always runs first after a pause.
        for (const models of [...setups.slice(r % 3), ...setups.slice(0, r % 3)]) {
          if (models.length === 0) {
            base.push(await engineAlone(env, server, concurrency));
            continue;
          }
          const { seconds, runSeconds, runs } = await once(models, concurrency);
          rates.get(models.length)!.whole.push(runs / seconds);
          rates.get(models.length)!.running.push(runs / runSeconds);
        }
      }
      const baseline = median(base);
      rows.push({ concurrency, setup: 'engine alone, same questions (baseline)', 'cases/s while running': fmt(baseline, 0), ratio: '1.00', 'cases/s with start-up and report': '' });
      for (const [count, { whole, running }] of rates) {
        rows.push({ concurrency, setup: `npm run eval, ${count} model${count > 1 ? 's interleaved' : ''}`, 'cases/s while running': fmt(median(running), 0), ratio: fmt(median(running) / baseline, 2), 'cases/s with start-up and report': fmt(median(whole), 0) });
      }
    }
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    name: 'eval: runner throughput against a zero-latency server',
    rows,
    notes: [
      `Medians of ${ROUNDS} interleaved rounds. ${CASES} cases, half calling the real calculator (CALCULATOR_WORKERS=2, the default), graded and reported. ` +
        'Every run, the baseline included, builds its core and starts the calculator\'s workers at its first calculation: a fixed cost (about half a second on a loaded machine) that two models share over twice the runs. ' +
        '"While running" is the report\'s own duration (first run to last); "with start-up and report" adds building the core, asking the server its models and writing the files.',
    ],
  };
}
