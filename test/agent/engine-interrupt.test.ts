import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/agent/engine.js';
import type { RunState } from '../../src/agent/run-state.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { drain, ofType } from './helpers.js';

const question = [{ role: 'user' as const, content: 'Add 1 and 2, then echo hi.' }];

/** A state taken through JSON, as shared storage would keep it. */
const stored = (state: RunState): RunState => JSON.parse(JSON.stringify(state)) as RunState;

describe('interruptions: a call that needs a person stops the run with its state, and the decision resumes it', () => {
  it('runs the calls of the step that need nobody, then stops with the state to resume from and only the waiting calls listed', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script(
      { content: 'I will echo first.', toolCalls: [{ id: 'e0', name: 'echo', arguments: { text: 'warm' } }] },
      { content: 'Now the sum and the echo.', toolCalls: [{ id: 'a1', name: 'add', arguments: { a: 1, b: 2 } }, { id: 'e1', name: 'echo', arguments: { text: 'hi' } }] },
    );
    const engine = createEngine({ model, tools, defaults: { protocol: 'native' } });
    const { events, result } = await drain(engine.run({ messages: question, approval: ({ tool }) => tool === 'add' }));

    expect(result.reason).toBe('interrupted');
    // The first step ran (nothing in it needed a person); of the second, only the call that needs nobody.
    expect(calls).toEqual([{ tool: 'echo', args: { text: 'warm' } }, { tool: 'echo', args: { text: 'hi' } }]);
    expect(ofType(events, 'action').map((a) => a.callId)).toEqual(['e0', 'a1', 'e1']);
    expect(ofType(events, 'observation').map((o) => o.callId)).toEqual(['e0', 'e1']);
    expect(result.interruption!.waiting.map((c) => [c.callId, c.input])).toEqual([['a1', { a: 1, b: 2 }]]);
    const state = result.interruption!.state;
    expect(state.steps).toBe(2);
    expect(state.pending.calls.map((c) => [c.callId, c.needsApproval, c.done?.output])).toEqual([['a1', true, undefined], ['e1', false, 'echo: hi']]);
    expect(state.added.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(state.sources).toEqual([{ title: 'Echo page', url: 'https://example.org/echo' }]);
    expect(state.usage.totalTokens).toBeGreaterThan(0);
    // Nothing of the waiting step is in the run's messages: a stopped run saves only whole steps.
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool']);
  });

  it('resumes from stored state: an approved call runs once, the others of its step are not run again, numbering and step count go on', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script(
      { content: 'Both at once.', toolCalls: [{ id: 'a1', name: 'add', arguments: { a: 1, b: 2 } }, { id: 'e1', name: 'echo', arguments: { text: 'hi' } }] },
    );
    const engine = createEngine({ model, tools, defaults: { protocol: 'native', maxSteps: 5 } });
    const first = await drain(engine.run({ messages: question, approval: ({ tool }) => tool === 'add' }));
    expect(calls).toEqual([{ tool: 'echo', args: { text: 'hi' } }]);

    // Another engine (another process, after a restart) takes the stored state up.
    const later = new ScriptedModel().script({ content: 'It is 3, and it said hi [1].' });
    const resumed = createEngine({ model: later, tools, defaults: { protocol: 'native', maxSteps: 5 } });
    const { events, result } = await drain(resumed.resume(stored(first.result.interruption!.state), { a1: { approved: true } }, { approval: ({ tool }) => tool === 'add' }));

    expect(calls).toEqual([{ tool: 'echo', args: { text: 'hi' } }, { tool: 'add', args: { a: 1, b: 2 } }]);
    expect(events[0]).toMatchObject({ type: 'run-start', resumed: true });
    // The resumed run shows the result of the call that waited (the step's calls were shown before it stopped), then answers.
    expect(ofType(events, 'action')).toEqual([]);
    expect(ofType(events, 'observation').map((o) => [o.callId, o.output])).toEqual([['a1', '3']]);
    expect(result.reason).toBe('answer');
    expect(result.steps).toBe(2);
    expect(result.sources).toEqual([{ title: 'Echo page', url: 'https://example.org/echo' }]);
    // The model sees the whole conversation: the question, the waiting step, its results in call order.
    expect(later.requests[0]!.messages.filter((m) => m.role === 'tool').map((m) => (m.content as string).split('\n')[0])).toEqual(['3', 'echo: hi']);
    const sent = later.requests[0]!.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    // What the run adds for memory: the waiting step and what followed, whole.
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool', 'assistant']);
  });

  it('a denied call is answered with the decision\'s note, and a call whose tool was turned off meanwhile does not run even when approved', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script(
      { toolCalls: [{ id: 'a1', name: 'add', arguments: { a: 1, b: 2 } }, { id: 'e1', name: 'echo', arguments: { text: 'hi' } }] },
    );
    const engine = createEngine({ model, tools, defaults: { protocol: 'native' } });
    const first = await drain(engine.run({ messages: question, approval: () => true }));
    expect(first.result.interruption!.waiting.map((c) => c.callId)).toEqual(['a1', 'e1']);

    const later = new ScriptedModel().script({ content: 'Understood.' });
    const resumed = createEngine({ model: later, tools, defaults: { protocol: 'native' } });
    const decisions = { a1: { approved: false as const, note: 'A person denied it.' }, e1: { approved: true as const } };
    const { events, result } = await drain(resumed.resume(stored(first.result.interruption!.state), decisions, { allowedTools: () => new Set(['add']) }));

    expect(calls).toEqual([]);
    expect(ofType(events, 'observation').map((o) => [o.callId, o.output.split('.')[0]])).toEqual([['a1', 'A person denied it'], ['e1', 'Error: the tool "echo" is not available here']]);
    expect(result.reason).toBe('answer');
  });

  it('a waiting call without a decision is not run, and the run may wait again at a later step', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script({ toolCalls: [{ id: 'a1', name: 'add', arguments: { a: 1, b: 2 } }] });
    const engine = createEngine({ model, tools, defaults: { protocol: 'native' } });
    const first = await drain(engine.run({ messages: question, approval: () => true }));

    const later = new ScriptedModel().script({ toolCalls: [{ id: 'a2', name: 'add', arguments: { a: 2, b: 2 } }] });
    const { result } = await drain(createEngine({ model: later, tools, defaults: { protocol: 'native' } }).resume(stored(first.result.interruption!.state), {}, { approval: () => true }));
    expect(calls).toEqual([]);
    expect(result.reason).toBe('interrupted');
    expect(result.interruption!.state.steps).toBe(2);
    expect(result.interruption!.state.added.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(result.interruption!.waiting.map((c) => c.callId)).toEqual(['a2']);
  });

  it('the text protocol interrupts and resumes the same way', async () => {
    const { tools, calls } = makeTestTools();
    const model = new ScriptedModel().script({ content: 'Thought: I need the sum.\nAction: add: {"a": 2, "b": 5}\nPAUSE' });
    const engine = createEngine({ model, tools, defaults: { protocol: 'text' } });
    const first = await drain(engine.run({ messages: question, approval: () => true }));
    expect(first.result.reason).toBe('interrupted');
    expect(first.result.interruption!.state.protocol).toBe('text');

    const later = new ScriptedModel().script({ content: 'Answer: 7' });
    const { result } = await drain(createEngine({ model: later, tools, defaults: { protocol: 'auto' } }).resume(stored(first.result.interruption!.state), { [first.result.interruption!.waiting[0]!.callId]: { approved: true } }, {}));
    expect(calls).toEqual([{ tool: 'add', args: { a: 2, b: 5 } }]);
    expect(result.answer).toBe('7');
    expect(result.protocol).toBe('text');
    expect(later.requests[0]!.messages.at(-1)!.content).toContain('Observation');
  });
});
