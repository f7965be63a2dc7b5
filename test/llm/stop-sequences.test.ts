import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heldBackLength, StopCutter } from '../../src/llm/stop-cutter.js';
import { ThinkSplitter } from '../../src/llm/think-splitter.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { clientFor, recording } from './helpers.js';

const STOP = ['PAUSE', '\nObservation'];

/** Feed `text` cut at every pair of positions and collect what comes out. */
function everySplit(text: string, run: (pieces: string[]) => string): Set<string> {
  const outs = new Set<string>();
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j++) outs.add(run([text.slice(0, i), text.slice(i, j), text.slice(j)]));
  }
  return outs;
}

describe('client-side stop sequences', () => {
  it('cuts at the first stop sequence wherever the chunks split it', () => {
    const text = 'Thought: add\nAction: calculate: 2+2\nObservation: 5\nAnswer: 5';
    const outs = everySplit(text, (pieces) => {
      const cutter = new StopCutter(STOP);
      return pieces.map((p) => cutter.push(p)).join('') + cutter.flush();
    });
    expect([...outs]).toEqual(['Thought: add\nAction: calculate: 2+2']);
  });

  it('holds back only what could start a stop sequence', () => {
    expect(heldBackLength('Action: calculate: 2+2\nObserv', STOP)).toBe(7);
    expect(heldBackLength('Action: calculate: 2+2\n', STOP)).toBe(1);
    expect(heldBackLength('I will PAU', STOP)).toBe(3);
    expect(heldBackLength('Nothing to hold', STOP)).toBe(0);
    const cutter = new StopCutter(STOP);
    expect(cutter.push('The answer is 4.\nObs')).toBe('The answer is 4.');
    expect(cutter.push('cure facts')).toBe('\nObscure facts');
  });

  it('drops the emphasis that opens a wrapped stop (**PAUSE**, __PAUSE__), wherever the chunks split it', () => {
    for (const [text, expected] of [
      ['**Action:** calculate: 15 * 25\n**PAUSE**', '**Action:** calculate: 15 * 25\n'],
      ['__Action__: calculate: 15 * 25 __PAUSE__', '__Action__: calculate: 15 * 25 '],
      ['Answer: it is **bold** text', 'Answer: it is **bold** text'],
    ]) {
      const outs = everySplit(text!, (pieces) => {
        const cutter = new StopCutter(STOP);
        return pieces.map((p) => cutter.push(p)).join('') + cutter.flush();
      });
      expect([...outs], text).toEqual([expected]);
    }
  });

  it('keeps emphasis before a stop that starts with a line break (it closes bold text)', () => {
    const cutter = new StopCutter(STOP);
    expect(cutter.push('Answer: **4**') + cutter.push('\nObservation: 5')).toBe('Answer: **4**');
  });

  it('passes everything through when there are no stop sequences', () => {
    const cutter = new StopCutter(undefined);
    expect(cutter.push('PAUSE\nObservation: x')).toBe('PAUSE\nObservation: x');
  });
});

describe('<think> splitting', () => {
  it('gives the same split wherever the chunks cut the tags', () => {
    const text = 'Before<think>inner thoughts</think>\n\nAfter';
    const outs = everySplit(text, (pieces) => {
      const splitter = new ThinkSplitter();
      const parts = [...pieces.flatMap((p) => splitter.push(p)), ...splitter.flush()];
      const of = (kind: string) => parts.filter((x) => x.kind === kind).map((x) => x.text).join('');
      return `${of('content')}|${of('reasoning')}`;
    });
    expect([...outs]).toEqual(['BeforeAfter|inner thoughts']);
  });
});

describe('a server that ignores stop sequences', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('has its reply cut at a stop sequence split across chunks, the rest of the stream dropped, and no cut text passed on', async () => {
    const invented = 'Thought: I will add.\nAction: calculate: 2+2\nObservation: 5\nThought: done\nAnswer: 5';
    server.script({
      content: invented,
      stream: { chunks: ['Thought: I will add.\nAction: calculate: 2+2', '\nObserv', 'ation: 5', '\nThought: done', '\nAnswer: 5'], paceMs: 30 },
    });
    const { request, deltas, text } = recording({ stop: STOP });
    const reply = await clientFor(server).complete(request);
    expect(server.requests[0]!.body.stop).toEqual(STOP);
    expect(reply.content).toBe('Thought: I will add.\nAction: calculate: 2+2');
    expect(reply.finishReason).toBe('stop');
    expect(text('content')).toBe(reply.content);
    expect(deltas.some((d) => d.text.includes('Observ'))).toBe(false);
    // The server learns of the dropped connection asynchronously: wait for it, up to a generous bound.
    for (let waited = 0; server.aborted === 0 && waited < 3_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(server.aborted).toBe(1);
  });

  it('stops at PAUSE written on the action line', async () => {
    server.script({ content: 'Action: wikipedia: Tokyo PAUSE\nObservation: made up', stream: { chunks: ['Action: wikipedia: Tokyo PA', 'USE\nObservation: made up'] } });
    const reply = await clientFor(server).complete(recording({ stop: STOP }).request);
    expect(reply.content).toBe('Action: wikipedia: Tokyo ');
  });

  it('keeps a reply whole when a held-back fragment turns out not to be a stop sequence', async () => {
    server.script({ content: 'Use the PAU key\nObscure', stream: { chunks: ['Use the PAU', ' key\nObs', 'cure'] } });
    const { request, text } = recording({ stop: STOP });
    const reply = await clientFor(server).complete(request);
    expect(reply.content).toBe('Use the PAU key\nObscure');
    expect(text('content')).toBe('Use the PAU key\nObscure');
  });

  it('also cuts a plain JSON answer at the stop sequence', async () => {
    server.script({ content: 'Action: calculate: 1+1\nObservation: 2', stream: { plainJson: true } });
    const reply = await clientFor(server).complete(recording({ stop: STOP }).request);
    expect(reply.content).toBe('Action: calculate: 1+1');
  });
});
