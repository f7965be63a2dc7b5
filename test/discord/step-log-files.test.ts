/** Charts in the step log and on the answer: a message of their own, never edited (an edit would upload them again). */
import { describe, expect, it } from 'vitest';
import { AnswerStream } from '../../src/discord/posting/answer-stream.js';
import type { FileOut, LogSink } from '../../src/discord/posting/message-mirror.js';
import { StepLog } from '../../src/discord/posting/step-log.js';
import { filesNote, filesOut } from '../../src/discord/posting/tool-files.js';

function recordingSink() {
  const messages: Array<{ content: string; button: boolean; files: string[]; sends: number; edits: number }> = [];
  const sink: LogSink<number> = {
    async send({ content, button, files }) {
      messages.push({ content, button, files: (files ?? []).map((f) => f.name), sends: 1, edits: 0 });
      return messages.length - 1;
    },
    async edit(handle, { content, button, files }) {
      const m = messages[handle]!;
      Object.assign(m, { content, button, edits: m.edits + 1, files: files ? files.map((f) => f.name) : m.files });
    },
  };
  return { sink, messages };
}

const chart = (name: string): FileOut => ({ name, data: Buffer.from('png') });

describe('files in the thread', () => {
  it('posts a chart as its own message between the steps, keeps the Stop button off it, and never edits it', async () => {
    const { sink, messages } = recordingSink();
    const log = new StepLog(sink, { minEditIntervalMs: 5, stopButton: true });
    log.append('🔧 `plot(...)`');
    log.attach('-# 📊 plot: sales.png', [chart('sales.png')]);
    await new Promise((r) => setTimeout(r, 30));
    expect(messages.map((m) => [m.content, m.button, m.files])).toEqual([['🔧 `plot(...)`', true, []], ['-# 📊 plot: sales.png', false, ['sales.png']]]);
    log.append('↳ more steps');
    await log.close();
    expect(messages.map((m) => m.content)).toEqual(['🔧 `plot(...)`', '-# 📊 plot: sales.png', '↳ more steps']);
    expect(messages[1]!.edits).toBe(0);
    expect(messages.every((m) => !m.button)).toBe(true);
  });

  it('attaches the run\'s charts to the answer\'s last message beside a long answer\'s own file, up to ten', async () => {
    const { sink, messages } = recordingSink();
    const answer = new AnswerStream(sink, { minEditIntervalMs: 5 });
    const charts = Array.from({ length: 12 }, (_, i) => chart(`c${i}.png`));
    await answer.finish(`### Answer\n${'long text. '.repeat(1_200)}`, true, undefined, charts);
    expect(messages.at(-1)!.files).toEqual(['answer.md', ...charts.slice(0, 9).map((c) => c.name)]);
    expect(filesNote(12, true, 9)).toBe('\n-# 3 more charts did not fit on this message (it holds 10 files); see the steps above.');
    expect(filesNote(1, false, 9)).toBe('\n-# ⚠️ A chart was drawn but cannot be shown: I lack the Attach Files permission here.');
  });

  it('names files uniquely when a run drew two charts of the same name', () => {
    const data = new Uint8Array([1]);
    expect(filesOut([{ name: 'chart.png', contentType: 'image/png', data }, { name: 'chart.png', contentType: 'image/png', data }]).map((f) => f.name)).toEqual(['chart.png', 'chart-2.png']);
  });
});
