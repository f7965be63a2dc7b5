import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { collect, modelFor, ofType } from './helpers.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await server.close();
});

const question = [{ role: 'user' as const, content: 'What is 2 + 3?' }];

describe('native protocol run', () => {
  it('calls a tool, feeds the result back with the step counter, and ends with the answer', async () => {
    const { tools, calls } = makeTestTools();
    server.script(
      { content: 'I will add the numbers.', toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }] },
      { content: '2 + 3 = 5.' },
    );
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native' });

    expect(events.filter((e) => e.type !== 'text-delta').map((e) => e.type)).toEqual([
      'run-start', 'step-start', 'thought', 'action', 'observation', 'step-start', 'answer', 'run-end',
    ]);
    expect(ofType(events, 'thought')[0]!.text).toBe('I will add the numbers.');
    expect(ofType(events, 'action')[0]).toMatchObject({ tool: 'add', input: { a: 2, b: 3 }, callId: 'c1' });
    expect(ofType(events, 'observation')[0]).toMatchObject({ callId: 'c1', output: '5', isError: false });
    expect(calls).toEqual([{ tool: 'add', args: { a: 2, b: 3 } }]);
    expect(result).toMatchObject({ reason: 'answer', answer: '2 + 3 = 5.', steps: 2, protocol: 'native' });
    expect(result.usage).toEqual({ promptTokens: 20, completionTokens: 10, totalTokens: 30 });

    const first = server.requests[0]!.body;
    expect(first.messages[0]!.role).toBe('system');
    expect(first.messages[0]!.content).toContain('at most 8 steps');
    expect(first.tools!.map((t) => t.function.name)).toEqual(['add', 'echo', 'fail', 'hang', 'big']);
    expect(first.tools![0]!.function.parameters).toMatchObject({ type: 'object', required: ['a', 'b'] });
    const second = server.requests[1]!.body.messages;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1' }] });
    expect(second.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(second.at(-1)!.content).toBe('5\n\n[step 2 of 8]');
    // What the store appends: a valid sequence (tool call, its result, the answer).
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
  });

  it('runs parallel tool calls concurrently and returns results in call order', async () => {
    let releaseFirst!: () => void;
    let firstMayFinish = new Promise<void>((r) => (releaseFirst = r));
    const order: string[] = [];
    const { tools } = makeTestTools();
    const slowFirst = {
      ...tools[0]!,
      name: 'first',
      async run() {
        await firstMayFinish; // only released by the second call: deadlocks unless both run at once
        order.push('first');
        return 'one';
      },
    };
    const second = {
      ...tools[0]!,
      name: 'second',
      async run() {
        order.push('second');
        releaseFirst();
        return 'two';
      },
    };
    server.script(
      { toolCalls: [{ id: 'a', name: 'first', arguments: { a: 1, b: 1 } }, { id: 'b', name: 'second', arguments: { a: 1, b: 1 } }] },
      { content: 'done' },
    );
    const { events, result } = await collect({ model: modelFor(server), tools: [slowFirst, second], messages: question, protocol: 'native' });
    expect(order).toEqual(['second', 'first']);

    // With a person deciding each call (approvals), the decisions come in call order and the calls
    // they let run still run side by side (this deadlocks if the first must finish first).
    order.length = 0;
    firstMayFinish = new Promise<void>((r) => (releaseFirst = r));
    const decided: string[] = [];
    server.script(
      { toolCalls: [{ id: 'c', name: 'first', arguments: { a: 1, b: 1 } }, { id: 'd', name: 'second', arguments: { a: 1, b: 1 } }] },
      { content: 'done again' },
    );
    const approved = await collect({
      model: modelFor(server), tools: [slowFirst, second], messages: question, protocol: 'native', toolTimeoutMs: 2_000,
      beforeTool: async (call) => {
        decided.push(call.tool);
        return { kind: 'run' };
      },
    });
    expect(decided).toEqual(['first', 'second']);
    expect(order).toEqual(['second', 'first']);
    // Neither call waited out its time limit for the other.
    expect(ofType(approved.events, 'observation').map((o) => o.isError)).toEqual([false, false]);
    expect(approved.result.reason).toBe('answer');
    expect(ofType(events, 'observation').map((o) => o.callId)).toEqual(['a', 'b']);
    const sent = server.requests[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(sent.map((m) => [m.tool_call_id, m.content?.split('\n')[0]])).toEqual([['a', 'one'], ['b', 'two']]);
    expect(result.reason).toBe('answer');
  });

  it('turns a failing tool, an unknown tool and malformed arguments into observations and carries on', async () => {
    const { tools } = makeTestTools();
    server.script(
      {
        toolCalls: [
          { id: 't1', name: 'fail', arguments: {} },
          { id: 't2', name: 'weather', arguments: { city: 'Oslo' } },
          { id: 't3', name: 'add', arguments: '{"a": 1, "b": ' },
          { id: 't4', name: 'add', arguments: { a: 'one', b: 2 } },
        ],
      },
      { content: 'Sorry, I could not compute that.' },
    );
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native' });
    const obs = ofType(events, 'observation');
    expect(obs.every((o) => o.isError)).toBe(true);
    expect(obs[0]!.output).toContain('the fail tool broke on purpose');
    expect(obs[1]!.output).toMatch(/no tool named "weather".*Tools you can use: add, echo, fail, hang, big/);
    expect(obs[2]!.output).toMatch(/not valid JSON.*JSON schema/);
    expect(obs[3]!.output).toMatch(/invalid arguments for add: a: .*number/i);
    expect(result.reason).toBe('answer');
    expect(server.requests[1]!.body.messages.filter((m) => m.role === 'tool')).toHaveLength(4);
  });

  it('at the step limit makes one last call without tools and says the answer was forced', async () => {
    const { tools } = makeTestTools();
    const loop = { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] };
    server.script(loop, loop, { content: 'Best answer from what I have: 2.' });
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native', maxSteps: 2 });
    expect(result).toMatchObject({ reason: 'step-limit', steps: 2, answer: 'Best answer from what I have: 2.' });
    expect(ofType(events, 'answer')[0]).toMatchObject({ forced: true });
    const last = server.requests[2]!.body;
    expect(last.tool_choice).toBe('none');
    expect(last.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(last.messages.at(-1)!.content).toContain('used all 2 steps');
    expect(server.requests[1]!.body.messages.at(-1)!.content).toContain('[step 2 of 2: the last step');
    // The nudge is not stored; the stored sequence stays valid.
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });

  it('accepts a final_answer tool call as the answer', async () => {
    const { tools } = makeTestTools();
    server.script({ toolCalls: [{ name: 'final_answer', arguments: { answer: 'Five.' } }] });
    const { result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native', offerFinalAnswerTool: true });
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).toContain('final_answer');
    expect(result).toMatchObject({ reason: 'answer', answer: 'Five.' });
    expect(result.messages).toEqual([{ role: 'assistant', content: 'Five.' }]);
  });

  it('cuts long tool output to the configured size with a note saying so', async () => {
    const { tools } = makeTestTools();
    server.script({ toolCalls: [{ name: 'big', arguments: { size: 5000 } }] }, { content: 'ok' });
    const { events } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native', maxToolOutputChars: 300 });
    const obs = ofType(events, 'observation')[0]!;
    expect(obs.truncated).toBe(true);
    expect(obs.output).toContain('[output cut: showing the first 300 of 5000 characters]');
    expect(obs.output.length).toBeLessThan(400);
  });

  it('collects tool sources for the answer', async () => {
    const { tools } = makeTestTools();
    server.script({ toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { content: 'It said hi.' });
    const { result, events } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native' });
    expect(result.sources).toEqual([{ title: 'Echo page', url: 'https://example.org/echo' }]);
    expect(ofType(events, 'answer')[0]!.sources).toHaveLength(1);
  });

  it('offers only the allowed tools and refuses a call to another, without running it', async () => {
    const { tools, calls } = makeTestTools();
    server.script({ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { content: 'cannot' });
    const { events } = await collect({
      model: modelFor(server), tools, messages: question, protocol: 'native', allowedTools: () => new Set(['echo']),
    });
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).toEqual(['echo']);
    expect(ofType(events, 'observation')[0]!.output).toContain('the tool "add" is not available here');
    expect(calls).toEqual([]);
  });

  it('asks the policy again right before tools run: a tool turned off while the model was thinking does not run', async () => {
    const { tools, calls } = makeTestTools();
    let addAllowed = true;
    server.script(
      () => {
        addAllowed = false; // a moderator disables `add` while this request is being answered
        return { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] };
      },
      { content: 'It was turned off.' },
    );
    const { events } = await collect({
      model: modelFor(server), tools, messages: question, protocol: 'native',
      allowedTools: () => new Set(addAllowed ? ['add', 'echo'] : ['echo']),
    });
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).toEqual(['add', 'echo']);
    expect(ofType(events, 'observation')[0]).toMatchObject({ tool: 'add', isError: true });
    expect(ofType(events, 'observation')[0]!.output).toContain('the tool "add" is not available here');
    expect(calls).toEqual([]);
  });
});
