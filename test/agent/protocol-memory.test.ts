import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/agent/engine.js';
import { ProtocolMemory } from '../../src/agent/protocol-memory.js';
import { ModelError } from '../../src/errors.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { drain, ofType } from './helpers.js';

const question = [{ role: 'user' as const, content: 'What is 2 + 3?' }];
const refused = () => new ModelError('tools-unsupported', 'The model server does not accept tool calling: qwen does not support tools', 400);

describe('what the engine learns about model servers', () => {
  it('forgets a learned protocol after its time, so a server upgraded with tool calling is tried again', () => {
    let now = 0;
    const memory = new ProtocolMemory(3_600_000, () => now);
    memory.remember('http://a/v1#m', 'text');
    now = 3_599_999;
    expect(memory.get('http://a/v1#m')).toBe('text');
    now = 3_600_000;
    expect(memory.get('http://a/v1#m')).toBeUndefined();
  });

  it('keeps what it learned per server and model: another model on the same server still gets native tools', async () => {
    const small = new ScriptedModel('small', 'http://local/v1#small').script({ error: refused() }, { content: 'Answer: 5' }, { content: 'Answer: again 5' });
    const big = new ScriptedModel('big', 'http://local/v1#big').script({ content: 'Five.' });
    const engine = createEngine({ model: small, tools: makeTestTools().tools });

    const first = await drain(engine.run({ messages: question }));
    expect(ofType(first.events, 'protocol-fallback')).toHaveLength(1);
    expect(first.result.protocol).toBe('text');

    const again = await drain(engine.run({ messages: question }));
    expect(again.result.protocol).toBe('text');
    expect(small.requests.at(-1)!.tools).toBeUndefined();

    const other = await drain(engine.run({ messages: question, model: big }));
    expect(other.result.protocol).toBe('native');
    expect(big.requests[0]!.tools?.length).toBeGreaterThan(0);
  });
});
