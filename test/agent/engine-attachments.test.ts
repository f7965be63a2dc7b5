/** Files a tool hands back (a chart): on its observation event, on the answer and the result, never in what the model reads. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agent/tool.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { collect, ofType } from './helpers.js';

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const draw = defineTool({
  name: 'draw',
  description: 'Draws a picture and posts it.',
  parameters: z.object({ what: z.string() }),
  textParameter: 'what',
  async run({ what }) {
    return { output: `Posted ${what}.png (2×2 px).`, attachments: [{ name: `${what}.png`, contentType: 'image/png', data: png, description: what }] };
  },
});
const plain = defineTool({ name: 'plain', description: 'Returns text only.', parameters: z.object({}), async run() { return 'just text'; } });

describe('tool attachments', () => {
  it('travel on the observation event of their step and, all of them, on the answer and the result; the model reads only the text', async () => {
    const model = new ScriptedModel().script(
      { toolCalls: [{ id: 'a', name: 'draw', arguments: { what: 'bars' } }, { id: 'b', name: 'plain', arguments: {} }] },
      { toolCalls: [{ id: 'c', name: 'draw', arguments: { what: 'lines' } }] },
      { content: 'Two charts above.' },
    );
    const { events, result } = await collect({ model, tools: [draw, plain], messages: [{ role: 'user', content: 'draw' }], protocol: 'native' });
    const observations = ofType(events, 'observation');
    expect(observations.map((o) => o.attachments?.map((a) => a.name))).toEqual([['bars.png'], undefined, ['lines.png']]);
    expect(observations[0]!.attachments![0]!.data).toBe(png);
    expect(ofType(events, 'answer')[0]!.attachments!.map((a) => a.name)).toEqual(['bars.png', 'lines.png']);
    expect(result.attachments!.map((a) => a.contentType)).toEqual(['image/png', 'image/png']);
    const toolMessages = model.requests[2]!.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.content)).toEqual([expect.stringMatching(/^Posted bars\.png \(2×2 px\)\./), expect.stringMatching(/^just text/), expect.stringMatching(/^Posted lines\.png/)]);
  });

  it('leave runs without files as they were: no attachments field anywhere', async () => {
    const model = new ScriptedModel().script({ toolCalls: [{ name: 'plain', arguments: {} }] }, { content: 'Done.' });
    const { events, result } = await collect({ model, tools: [plain], messages: [{ role: 'user', content: 'go' }], protocol: 'native' });
    expect(events.some((e) => 'attachments' in e)).toBe(false);
    expect('attachments' in result).toBe(false);
  });
});
