/**
 * Evaluation throughput: `npm run eval`'s runner (in-process, as the CLI runs it) over a suite of 200
 * cases against a zero-latency local model server, at concurrency 1 and 8, with one model and with two
 * interleaved. Half the cases call the real calculator (two model calls and a worker round trip), half
 * are answered at once; every case is graded by contains and number checks. Cases per second is runs
 * per wall-clock second, the report files written included.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runEval } from '../src/eval/main.js';
import { FakeOpenAIServer, type ScriptedReply } from '../test/fakes/openai-server.js';
import { fmt, median, type BenchSection } from './stats.js';

const CASES = 200;
const ROUNDS = 3;

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
    await once(['bench-a'], 8); // warm-up: the calculator's workers, the modules, the server's sockets
    for (const models of [['bench-a'], ['bench-a', 'bench-b']]) {
      for (const concurrency of [1, 8]) {
        const whole: number[] = [];
        const running: number[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const { seconds, runSeconds, runs } = await once(models, concurrency);
          whole.push(runs / seconds);
          running.push(runs / runSeconds);
        }
        rows.push({ models: models.length, concurrency, runs: CASES * models.length, 'cases/s while running': fmt(median(running), 0), 'cases/s with start-up and report': fmt(median(whole), 0) });
      }
    }
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    name: 'eval: runner throughput against a zero-latency server',
    rows,
    notes: [`Medians of ${ROUNDS} runs. ${CASES} cases, half calling the real calculator (CALCULATOR_WORKERS=2, the default), graded and reported; each run builds the core once (the calculator's workers start, the server is asked its models).`],
  };
}
