import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/agent/engine.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { drain, ofType } from './helpers.js';

const question = [{ role: 'user' as const, content: 'What is 2 + 3?' }];

function engineWith(model: ScriptedModel, protocol: 'native' | 'text' = 'native', maxSteps = 8) {
  return createEngine({ model, tools: makeTestTools().tools, defaults: { protocol, maxSteps } });
}

describe('streamed replies', () => {
  it('native: yields the answer as it is written, in order, and the deltas add up to the answer', async () => {
    const model = new ScriptedModel().script({ content: 'The sum of two and three is five.' });
    const { events, result } = await drain(engineWith(model).run({ messages: question }));
    const deltas = ofType(events, 'text-delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.every((d) => d.step === 1 && d.kind === 'answer')).toBe(true);
    expect(deltas.map((d) => d.text).join('')).toBe(result.answer);
    // Every delta comes before the answer event that settles it.
    expect(events.findIndex((e) => e.type === 'answer')).toBeGreaterThan(events.lastIndexOf(deltas.at(-1)!));
  });

  it('native: text before tool calls streams as answer text, then the thought event says it was the thought', async () => {
    const model = new ScriptedModel().script(
      { content: 'I will add them.', toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      { content: 'Five.' },
    );
    const { events } = await drain(engineWith(model).run({ messages: question }));
    const step1 = ofType(events, 'text-delta').filter((d) => d.step === 1);
    expect(step1.map((d) => d.text).join('')).toBe('I will add them.');
    expect(ofType(events, 'thought')[0]).toEqual({ type: 'thought', step: 1, text: 'I will add them.' });
    expect(ofType(events, 'text-delta').filter((d) => d.step === 2).map((d) => d.text).join('')).toBe('Five.');
  });

  it('reasoning text streams as thought and never reaches the answer or the stored history', async () => {
    const model = new ScriptedModel().script({ reasoning: 'Two plus three, carry nothing.', content: 'Five.' });
    const { events, result } = await drain(engineWith(model).run({ messages: question }));
    expect(ofType(events, 'text-delta')[0]).toEqual({ type: 'text-delta', step: 1, kind: 'thought', text: 'Two plus three, carry nothing.' });
    expect(result.answer).toBe('Five.');
    expect(JSON.stringify(result.messages)).not.toContain('carry nothing');
  });

  it('text protocol: thought and answer text stream as such; the action line and a self-written observation never do', async () => {
    const model = new ScriptedModel().script(
      { content: 'Thought: I should add.\nAction: add: {"a": 2, "b": 3}\nPAUSE', pieces: ['Thought: I sh', 'ould add.\nAct', 'ion: add: {"a": 2, "b": 3}\nPA', 'USE'] },
      { content: 'Thought: I have it.\nAnswer: It is 5.\nObservation: made up', pieces: ['Thought: I have it.\nAns', 'wer: It is', ' 5.\nObserv', 'ation: made up'] },
    );
    const { events, result } = await drain(engineWith(model, 'text').run({ messages: question }));
    const text = (step: number, kind: string) => ofType(events, 'text-delta').filter((d) => d.step === step && d.kind === kind).map((d) => d.text).join('');
    expect(text(1, 'thought')).toBe('I should add.');
    expect(text(1, 'answer')).toBe('');
    expect(text(2, 'thought')).toBe('I have it.');
    expect(text(2, 'answer')).toBe('It is 5.');
    expect(JSON.stringify(ofType(events, 'text-delta'))).not.toMatch(/made up|Action|PAUSE/);
    expect(result.answer).toBe('It is 5.');
  });
});

describe('honest endings', () => {
  it('an answer cut at the length limit is kept but marked as cut off', async () => {
    const model = new ScriptedModel().script({ content: 'The answer is a long story that', finishReason: 'length' });
    const { events, result } = await drain(engineWith(model).run({ messages: question }));
    expect(ofType(events, 'answer')[0]).toMatchObject({ text: 'The answer is a long story that', cutOff: 'length' });
    expect(result).toMatchObject({ reason: 'answer', cutOff: 'length' });
  });

  it('a tool call cut at the length limit is not run: the model is asked to reply shorter', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script(
      { content: 'Adding.', toolCalls: [{ name: 'add', arguments: '{"a": 2, "b"' }], finishReason: 'length' },
      { content: 'Five.' },
    );
    const { events, result } = await drain(createEngine({ model, tools, defaults: { protocol: 'native' } }).run({ messages: question }));
    expect(calls).toEqual([]);
    expect(ofType(events, 'action')).toEqual([]);
    expect(ofType(events, 'format-reminder')[0]!.text).toMatch(/cut off at the length limit/);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/Reply again, shorter/) });
    expect(result).toMatchObject({ reason: 'answer', answer: 'Five.' });
  });

  it('text protocol: an action cut at the length limit is not run either', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script(
      { content: 'Thought: echo it.\nAction: echo: a very long inp', finishReason: 'length' },
      { content: 'Answer: done' },
    );
    const { result } = await drain(createEngine({ model, tools, defaults: { protocol: 'text' } }).run({ messages: question }));
    expect(calls).toEqual([]);
    expect(model.requests[1]!.messages.at(-1)!.content).toMatch(/^Observation: Your reply was cut off/);
    expect(result.answer).toBe('done');
  });

  it('a content-filtered answer is marked; a filtered empty reply ends the run with a clear error', async () => {
    const marked = new ScriptedModel().script({ content: 'Partial text', finishReason: 'content_filter' });
    expect((await drain(engineWith(marked).run({ messages: question }))).result).toMatchObject({ answer: 'Partial text', cutOff: 'content-filter' });

    const empty = new ScriptedModel().script({ content: '', finishReason: 'content_filter' });
    const { events, result } = await drain(engineWith(empty).run({ messages: question }));
    expect(result).toMatchObject({ reason: 'error', error: { code: 'content-filter' } });
    expect(ofType(events, 'error')[0]!.message).toMatch(/content filter/);
  });

  it('a prose reply accepted as the answer (text protocol, twice) is shown once, not also as a thought', async () => {
    const model = new ScriptedModel().script({ content: 'I think it is five.' }, { content: 'It is five, really.' });
    const { events, result } = await drain(engineWith(model, 'text').run({ messages: question }));
    expect(result.answer).toBe('It is five, really.');
    expect(ofType(events, 'thought').map((e) => e.text)).toEqual(['I think it is five.']);
    expect(ofType(events, 'answer').map((e) => e.text)).toEqual(['It is five, really.']);
  });

  it('a token budget crossed mid-run: the step finishes, then the model answers from what it has', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }], usage: { prompt: 900, completion: 200 } },
      { content: 'From what I have: 5.' },
    );
    const { events, result } = await drain(createEngine({ model, tools, defaults: { protocol: 'native' } }).run({ messages: question, tokenBudget: 1_000 }));
    expect(calls).toHaveLength(1); // the step that crossed the budget finished
    expect(result).toMatchObject({ reason: 'token-budget', answer: 'From what I have: 5.', steps: 1 });
    expect(ofType(events, 'answer')[0]!.forced).toBe(true);
    expect(model.requests[1]!.tools?.length ?? 0).toBeGreaterThan(0);
    expect(model.requests[1]!.toolChoice).toBe('none');
    expect(model.requests[1]!.messages.at(-1)!.content).toMatch(/used up its token budget/);
  });
});
