import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, isFinalAnswer, type Harness } from '../discord/harness.js';
import { OtlpReceiver, type ReceivedSpan } from '../fakes/otlp-receiver.js';

let h: Harness | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await h?.close();
  await receiver?.close();
  h = receiver = undefined;
});

const QUESTION = 'What is 17 times 3, secretly?';
const THOUGHT = 'I will compute the product.';
const ANSWER = 'The product is 51.';

/** Two runs in one thread: an /ask that calls the calculator, then a follow-up; the bot stopped so every span is sent. */
async function twoRuns(env: Record<string, string>): Promise<{ spans: ReceivedSpan[]; threadId: string; guildId: string; channelId: string }> {
  receiver = await OtlpReceiver.start();
  h = await startHarness({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...env } });
  const { fake, model } = h;
  model.script({ content: THOUGHT, toolCalls: [{ name: 'calculate', arguments: { expression: '17 * 3' } }] }, { content: ANSWER });
  fake.sendSlashCommand({ name: 'ask', options: { question: QUESTION } });
  const answer = await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes(ANSWER), 10_000);
  model.script({ content: 'Doubled, 102.' });
  fake.sendMessage({ channelId: answer.channelId, content: 'And doubled?' });
  await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Doubled, 102.'), 10_000);
  await h.close();
  h = undefined;
  return { spans: receiver.spans, threadId: answer.channelId, guildId: fake.defaults.guildId, channelId: fake.defaults.channelId };
}

function byTrace(spans: ReceivedSpan[]): ReceivedSpan[][] {
  const traces = new Map<string, ReceivedSpan[]>();
  for (const s of spans) traces.set(s.traceId, [...(traces.get(s.traceId) ?? []), s]);
  return [...traces.values()];
}

/** Whether `span`'s parent chain leads to `root` within its trace. */
function descendsFrom(span: ReceivedSpan, root: ReceivedSpan, trace: ReceivedSpan[]): boolean {
  let current: ReceivedSpan | undefined = span;
  while (current && current.parentSpanId) {
    if (current.parentSpanId === root.spanId) return true;
    current = trace.find((s) => s.spanId === current!.parentSpanId);
  }
  return false;
}

describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT set: one trace per run, GenAI conventions, OTLP/HTTP JSON)', () => {
  it('exports each run as one trace: invoke_agent with the ids, result, steps and tokens; chat and execute_tool under it; Discord REST calls inside; no message text', async () => {
    const { spans, threadId, guildId, channelId } = await twoRuns({});
    expect(receiver!.rejected).toEqual([]);
    const traces = byTrace(spans);
    expect(traces).toHaveLength(2);
    const [first, second] = traces.sort((a, b) => a.length - b.length).reverse() as [ReceivedSpan[], ReceivedSpan[]];

    for (const trace of traces) {
      const roots = trace.filter((s) => !s.parentSpanId);
      expect(roots.map((r) => r.name)).toEqual(['invoke_agent threadwise']);
      const root = roots[0]!;
      expect(root.resource['service.name']).toBe('threadwise');
      expect(root.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'threadwise',
        'discord.guild.id': guildId, 'discord.channel.id': channelId,
        'discord.thread.id': threadId, 'gen_ai.conversation.id': threadId, 'threadwise.run.reason': 'answer',
      });
      // Every other span of the trace hangs under the run.
      for (const span of trace.filter((s) => s !== root)) expect(descendsFrom(span, root, trace), span.name).toBe(true);
      // Discord's REST calls are in the run's trace, by route template (never a token or an id).
      const rest = trace.filter((s) => /^(GET|POST|PATCH|PUT|DELETE) \//.test(s.name));
      expect(rest.length).toBeGreaterThan(0);
      for (const call of rest) {
        expect(call.name).toMatch(/^[A-Z]+ (\/[a-z_-]+|\/:id|\/:token|\/@[a-z]+)+$/);
        expect(call.attributes['http.response.status_code']).toBeLessThan(400);
      }
    }

    // The /ask: two model calls, one tool call.
    const root = first.find((s) => !s.parentSpanId)!;
    expect(root.attributes).toMatchObject({ 'threadwise.run.steps': 2, 'gen_ai.usage.input_tokens': expect.any(Number), 'gen_ai.usage.output_tokens': expect.any(Number) });
    const chats = first.filter((s) => s.name === 'chat gpt-4o-mini');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(root.spanId);
      expect(chat.kind).toBe(3); // CLIENT
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': expect.any(Number), 'gen_ai.usage.output_tokens': expect.any(Number),
        'gen_ai.response.time_to_first_chunk': expect.any(Number),
      });
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);
    const usage = chats.reduce((sum, c) => sum + (c.attributes['gen_ai.usage.input_tokens'] as number), 0);
    expect(root.attributes['gen_ai.usage.input_tokens']).toBe(usage);
    const tools = first.filter((s) => s.name.startsWith('execute_tool'));
    expect(tools.map((t) => t.name)).toEqual(['execute_tool calculate']);
    expect(tools[0]!.parentSpanId).toBe(root.spanId);
    expect(tools[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'calculate', 'threadwise.tool.outcome': 'ok', 'threadwise.tool.duration_ms': expect.any(Number) });
    expect(tools[0]!.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
    // The follow-up: one model call, no tool.
    expect(second.filter((s) => s.name.startsWith('chat '))).toHaveLength(1);
    expect(second.filter((s) => s.name.startsWith('execute_tool'))).toHaveLength(0);

    // No message text anywhere unless content capture is on.
    const text = JSON.stringify(spans.map((s) => s.attributes));
    for (const secret of ['secretly', THOUGHT, ANSWER, '17 * 3', 'And doubled', 'Doubled, 102']) expect(text).not.toContain(secret);
  }, 60_000);

  it('with OTEL_CAPTURE_CONTENT=true puts the messages, tool arguments, result and answer on the spans', async () => {
    const { spans } = await twoRuns({ OTEL_CAPTURE_CONTENT: 'true' });
    const tool = spans.find((s) => s.name === 'execute_tool calculate')!;
    expect(JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ expression: '17 * 3' });
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('51');
    const chat = spans.find((s) => s.name.startsWith('chat ') && String(s.attributes['gen_ai.input.messages']).includes('secretly'));
    expect(chat).toBeDefined();
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((r) => r.attributes['gen_ai.output.messages']).join('\n')).toContain(ANSWER);
  }, 60_000);
});
