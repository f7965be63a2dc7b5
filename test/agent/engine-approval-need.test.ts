/**
 * A tool that says one of its own calls must wait for a person (`needsApproval`): the engine asks the
 * run's `beforeTool` with the reason, passes who approved it to the tool, and with nobody to ask does
 * not run the call at all. The people the run answers and its notices reach every tool's context.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngine } from '../../src/agent/engine.js';
import { defineTool, type ToolContext, type ToolNotice } from '../../src/agent/tool.js';
import type { BeforeTool } from '../../src/agent/run-plan.js';
import { ScriptedModel } from '../fakes/scripted-model.js';

/** A tool that asks for approval when its input says so, and reports what its context held. */
function noteTool(seen: ToolContext[]) {
  return defineTool({
    name: 'note',
    description: 'Keeps a note.',
    parameters: z.object({ text: z.string() }),
    needsApproval: ({ text }, ctx) => (text.startsWith('unasked') ? { reason: 'nobody asked for it', approvers: [{ id: ctx.askers?.[0]?.id ?? '?', name: 'Ann' }] } : undefined),
    async run({ text }, ctx) {
      seen.push(ctx);
      await ctx.notify?.({ kind: 'noted', personId: ctx.askers?.[0]?.id ?? '', text, ref: 'n1' });
      return `kept ${text}${ctx.approvedBy ? ` (approved by ${ctx.approvedBy})` : ''}`;
    },
  });
}

const question = [{ role: 'user' as const, content: 'note it' }];
const askers = [{ id: '7', name: 'Ann', words: 'note it' }];

describe('calls a tool says must wait for a person', () => {
  it('go to beforeTool with the reason and approvers; an approval reaches the tool as approvedBy', async () => {
    const seen: ToolContext[] = [];
    const notices: ToolNotice[] = [];
    const model = new ScriptedModel().script(
      { toolCalls: [{ id: 'a', name: 'note', arguments: { text: 'asked' } }, { id: 'b', name: 'note', arguments: { text: 'unasked one' } }] },
      { content: 'Done.' },
    );
    const calls: Parameters<BeforeTool>[0][] = [];
    const engine = createEngine({ model, tools: [noteTool(seen)] });
    const run = engine.run({
      messages: question, askers, notify: async (n) => void notices.push(n),
      beforeTool: async (call) => {
        calls.push(call);
        return call.approval ? { kind: 'run', approvedBy: '7' } : { kind: 'run' };
      },
    });
    const result = await run.result;
    expect(result.reason).toBe('answer');
    expect(calls.map((c) => c.approval)).toEqual([undefined, { reason: 'nobody asked for it', approvers: [{ id: '7', name: 'Ann' }] }]);
    expect(seen.map((c) => c.approvedBy)).toEqual([undefined, '7']);
    expect(seen[0]!.askers).toEqual(askers);
    expect(notices.map((n) => n.text)).toEqual(['asked', 'unasked one']);
    const tools = model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content).split('\n')[0]);
    expect(tools).toEqual(['kept asked', 'kept unasked one (approved by 7)']);
  });

  it('with nobody to ask, such a call is not run and the model is told why; the others run', async () => {
    const seen: ToolContext[] = [];
    const model = new ScriptedModel().script(
      { toolCalls: [{ id: 'a', name: 'note', arguments: { text: 'unasked' } }, { id: 'b', name: 'note', arguments: { text: 'fine' } }] },
      { content: 'Done.' },
    );
    const result = await createEngine({ model, tools: [noteTool(seen)] }).run({ messages: question, askers }).result;
    expect(result.reason).toBe('answer');
    expect(seen).toHaveLength(1);
    const tools = model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content).split('\n')[0]);
    expect(tools[0]).toBe("The call to note was not run: nobody asked for it. It needs a person's approval, and nobody can be asked here.");
    expect(tools[1]).toBe('kept fine');
  });

  it('a check that throws counts as needing approval', async () => {
    const tool = defineTool({
      name: 'note', description: 'x', parameters: z.object({}),
      needsApproval: () => {
        throw new Error('broken check');
      },
      run: async () => 'ran',
    });
    const model = new ScriptedModel().script({ toolCalls: [{ name: 'note', arguments: {} }] }, { content: 'Done.' });
    await createEngine({ model, tools: [tool] }).run({ messages: question }).result;
    expect(String(model.requests[1]!.messages.find((m) => m.role === 'tool')!.content)).toContain('its approval check failed (broken check)');
  });
});
