import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { createEngine } from '../../src/agent/engine.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { collect, drain, modelFor, ofType } from './helpers.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await server.close();
});

const question = [{ role: 'user' as const, content: 'Echo hello, please.' }];

describe('text protocol run', () => {
  it('runs Thought / Action / PAUSE / Observation / Answer end to end with stop sequences', async () => {
    const { tools, calls } = makeTestTools();
    server.script(
      { content: 'Thought: I should echo it.\nAction: echo: hello\n' },
      { content: 'Thought: I have it.\nAnswer: It says "echo: hello".' },
    );
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'text' });
    expect(calls).toEqual([{ tool: 'echo', args: { text: 'hello' } }]);
    expect(events.filter((e) => e.type !== 'text-delta').map((e) => e.type)).toEqual([
      'run-start', 'step-start', 'thought', 'action', 'observation', 'step-start', 'thought', 'answer', 'run-end',
    ]);
    expect(result).toMatchObject({ reason: 'answer', answer: 'It says "echo: hello".', protocol: 'text' });

    const first = server.requests[0]!.body;
    expect(first.tools).toBeUndefined();
    expect(first.stop).toEqual(['PAUSE', '\nObservation']);
    expect(first.messages[0]!.content).toContain('echo: Repeat the text back.');
    expect(first.messages[0]!.content).toContain('never write an Observation yourself');
    const second = server.requests[1]!.body.messages;
    expect(second.at(-1)).toEqual({ role: 'user', content: 'Observation: echo: hello\n\n[step 2 of 8]' });
  });

  it.each([
    ['bold labels, colon inside, bold PAUSE', ['**Thought:** I need to multiply.\n**Act', 'ion:** echo: 15 * 25\n*', '*PAU', 'SE**\nObservation: 375']],
    ['bold labels, colon outside, bold PAUSE', ['**Thought**: I need to multiply.\n**Action**: echo: 15 * 25\n**', 'PAUSE**']],
    ['underlined labels and PAUSE', ['__Thought:__ I need to multiply.\n__Action:__ echo: 15 * 25\n__PAUSE__']],
    ['lower-case labels and pause', ['thought: I need to multiply.\naction: echo: 15 * 25\npause\nobservation: 375']],
    ['upper-case labels, a bold PAUSE on the action line', ['THOUGHT: I need to multiply.\nACTION: echo: 15 * 25 **PAUSE**']],
  ])('reads %s through the streaming client and runs the action', async (_name, chunks) => {
    const { tools, calls } = makeTestTools();
    server.script({ content: chunks.join(''), stream: { chunks } }, { content: '**thought:** I have it.\n**answer:** 375' });
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'text' });
    expect(calls).toEqual([{ tool: 'echo', args: { text: '15 * 25' } }]);
    expect(ofType(events, 'format-reminder')).toHaveLength(0);
    expect(ofType(events, 'thought')[0]!.text).toBe('I need to multiply.');
    // What was streamed as the thought carries no fragment of the labels or of PAUSE.
    const streamed = ofType(events, 'text-delta').filter((e) => e.step === 1).map((e) => e.text).join('');
    expect(streamed).toBe('I need to multiply.');
    // The assistant turn kept in the transcript ends with a clean PAUSE, not a dangling fragment.
    expect(server.requests[1]!.body.messages.at(-2)!.content).not.toMatch(/\*\*\s*\nPAUSE|__\s*\nPAUSE/);
    expect(result).toMatchObject({ reason: 'answer', answer: '375' });
  });

  it('never trusts an Observation the model writes for itself', async () => {
    const { tools } = makeTestTools();
    server.script(
      { content: 'Thought: echo\nAction: echo: real\nObservation: echo: FAKE\nAnswer: FAKE' },
      { content: 'Answer: done' },
    );
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'text' });
    expect(ofType(events, 'observation')[0]!.output).toBe('echo: real');
    const sent = server.requests[1]!.body.messages.map((m) => m.content).join('\n');
    expect(sent).not.toContain('FAKE');
    expect(result.answer).toBe('done');
  });

  it('reads the ReAct paper style through a tool alias', async () => {
    const { tools, calls } = makeTestTools();
    server.script({ content: 'Thought 1: search it\nAction 1: Search[Tokyo]' }, { content: 'Action 2: Finish[Tokyo is big]' });
    const { result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'text' });
    expect(calls).toEqual([{ tool: 'echo', args: { text: 'Tokyo' } }]);
    expect(result.answer).toBe('Tokyo is big');
  });

  it('answers a reply with neither action nor answer with a format reminder that counts as a step', async () => {
    const { tools } = makeTestTools();
    server.script({ content: 'Hmm, let me think about echoing.' }, { content: 'Answer: hello' });
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'text' });
    expect(ofType(events, 'format-reminder')).toHaveLength(1);
    expect(server.requests[1]!.body.messages.at(-1)!.content).toMatch(/no "Action:" line and no "Answer:" line/);
    expect(result).toMatchObject({ reason: 'answer', steps: 2 });
  });

  it('accepts plain prose as the answer when the model ignores the format twice in a row', async () => {
    const { tools } = makeTestTools();
    server.script({ content: 'The answer is hello.' }, { content: 'It is simply hello.' });
    const { result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'text' });
    expect(result).toMatchObject({ reason: 'answer', answer: 'It is simply hello.' });
  });

  it('tells the model a disabled tool is not available here and runs no tool code', async () => {
    const { tools, calls } = makeTestTools();
    server.script({ content: 'Thought: add\nAction: add: {"a": 1, "b": 2}' }, { content: 'Answer: I cannot add here.' });
    const { events } = await collect({
      model: modelFor(server), tools, messages: question, protocol: 'text', allowedTools: () => new Set(['echo']),
    });
    expect(server.requests[0]!.body.messages[0]!.content).not.toContain('add: Add two numbers');
    expect(ofType(events, 'observation')[0]).toMatchObject({ isError: true });
    expect(ofType(events, 'observation')[0]!.output).toContain('"add" is not available here. Tools you can use: echo');
    expect(calls).toEqual([]);
  });

  it('decodes a JSON object input for a tool with several parameters', async () => {
    const { tools, calls } = makeTestTools();
    server.script({ content: 'Action: add: {"a": 4, "b": 5}' }, { content: 'Answer: 9' });
    await collect({ model: modelFor(server), tools, messages: question, protocol: 'text' });
    expect(calls).toEqual([{ tool: 'add', args: { a: 4, b: 5 } }]);
  });

  it('rewrites native tool-call history as Action / Observation turns', async () => {
    const { tools } = makeTestTools();
    server.script({ content: 'Answer: still 5' });
    const history = [
      { role: 'user' as const, content: 'add 2 and 3' },
      { role: 'assistant' as const, content: 'adding', tool_calls: [{ id: 'x', type: 'function' as const, function: { name: 'add', arguments: '{"a":2,"b":3}' } }] },
      { role: 'tool' as const, tool_call_id: 'x', content: '5' },
      { role: 'assistant' as const, content: 'It is 5.' },
      { role: 'user' as const, content: 'and again?' },
    ];
    await collect({ model: modelFor(server), tools, messages: history, protocol: 'text' });
    const sent = server.requests[0]!.body.messages.slice(1);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(sent[1]!.content).toBe('Thought: adding\nAction: add: {"a":2,"b":3}\nPAUSE');
    expect(sent[2]!.content).toBe('Observation: 5');
  });
});

describe('text protocol reminders', () => {
  it('names an Action line it could not read instead of claiming there was none', async () => {
    const model = new ScriptedModel().script({ content: 'Thought: look it up\nAction: geocode(capital of France)' }, { content: 'Answer: Paris' });
    const { events, result } = await drain(createEngine({ model, tools: makeTestTools().tools, defaults: { protocol: 'text' } }).run({ messages: [{ role: 'user', content: 'Capital?' }] }));
    const reminder = ofType(events, 'format-reminder')[0]!.text;
    expect(reminder).toContain('"Action: geocode(capital of France)" is not a call I can run');
    expect(reminder).not.toContain('no "Action:" line');
    expect(result.answer).toBe('Paris');
  });
});
