import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/agent/engine.js';
import { readRunState, type RunState } from '../../src/agent/run-state.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { drain } from './helpers.js';

const question = [{ role: 'user' as const, content: 'Add 1 and 2, then echo hi.' }];

/** A real interrupted run's state, as shared storage keeps it: JSON, no types. */
async function savedState(): Promise<{ state: RunState; saved: unknown }> {
  const { tools } = makeTestTools();
  const model = new ScriptedModel().script(
    { content: 'Both at once.', toolCalls: [{ id: 'a1', name: 'add', arguments: { a: 1, b: 2 } }, { id: 'e1', name: 'echo', arguments: { text: 'hi' } }] },
  );
  const { result } = await drain(createEngine({ model, tools, defaults: { protocol: 'native' } }).run({ messages: question, approval: ({ tool }) => tool === 'add' }));
  const state = result.interruption!.state;
  return { state, saved: JSON.parse(JSON.stringify(state)) as unknown };
}

describe('a run state read back from storage is checked whole, never cast', () => {
  it('a state the engine wrote reads back whole, field for field, and the run resumes from what was read', async () => {
    const { state, saved } = await savedState();
    const read = readRunState(saved);
    expect(read).toEqual({ ok: true, value: state });
    if (!read.ok) return;
    const { tools, calls } = makeTestTools();
    const later = new ScriptedModel().script({ content: 'It is 3.' });
    const { result } = await drain(createEngine({ model: later, tools, defaults: { protocol: 'native' } }).resume(read.value, { a1: { approved: true } }, { approval: () => true }));
    expect(result.answer).toBe('It is 3.');
    expect(calls).toEqual([{ tool: 'add', args: { a: 1, b: 2 } }]);
  });

  it('a state of another version is refused with that version, however well formed the rest is', async () => {
    const { saved } = await savedState();
    expect(readRunState({ ...(saved as object), v: 2 })).toEqual({ ok: false, why: { kind: 'version', v: 2 } });
  });

  it('a damaged state is refused saying what is wrong: a field of the wrong type, a missing part, no version, not an object', async () => {
    const { saved } = await savedState();
    const wrongType = readRunState({ ...(saved as object), steps: 'many' });
    expect(wrongType).toMatchObject({ ok: false, why: { kind: 'damaged' } });
    expect(!wrongType.ok && wrongType.why.kind === 'damaged' && wrongType.why.detail).toMatch(/steps/);
    const { pending: _gone, ...noPending } = saved as Record<string, unknown>;
    expect(readRunState(noPending)).toMatchObject({ ok: false, why: { kind: 'damaged', detail: expect.stringMatching(/pending/) } });
    const { v: _v, ...unversioned } = saved as Record<string, unknown>;
    expect(readRunState(unversioned)).toEqual({ ok: false, why: { kind: 'damaged', detail: 'no version' } });
    expect(readRunState('{"v":1}')).toEqual({ ok: false, why: { kind: 'damaged', detail: 'no version' } });
    expect(readRunState(null)).toEqual({ ok: false, why: { kind: 'damaged', detail: 'no version' } });
  });
});
