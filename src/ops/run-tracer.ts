/**
 * Traces of runs, in the OpenTelemetry GenAI conventions, built from what the engine already says
 * rather than threaded through it:
 * - `invoke_agent threadwise` (the run): opened around a turn by `traceRun`, so everything the turn
 *   does (model calls, Discord REST calls, timers) happens in its context; the `run-end` event adds
 *   the result reason, steps and token usage.
 * - `chat {model}` per model call: `wrapModel` decorates the model client (like the metrics' one),
 *   with the request model, token usage, finish reason and time to the first streamed text.
 * - `execute_tool {name}` per tool call: from the `action` and `observation` events, timed by the
 *   observation's own duration.
 * - `{METHOD} {route}` per Discord REST call inside a run: `wrapFetch` decorates the REST client's
 *   request function (route templates only: interaction tokens never reach a span).
 * Questions, answers, tool arguments and results go on spans only with `captureContent`.
 * Only `@opentelemetry/api` here; the SDK and exporter are the composition root's business.
 */
import { context, createContextKey, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { boundedJson } from '../agent/describe.js';
import type { AgentEvent, ChatModel, ModelReply, ModelRequest } from '../agent/types.js';

/**
 * Content on spans (OTEL_CAPTURE_CONTENT) is the model's and the tools' text: bounded in size and depth,
 * so a 5,000-deep argument or an image's megabytes of base64 can neither throw nor bloat a span.
 */
const TRACE_JSON = { maxChars: 64_000, maxDepth: 32 };

/** Where a run happens: the ids its span carries. */
export interface RunPlace {
  guildId: string | null;
  channelId: string;
  /** The thread (the conversation), when the run has one. */
  threadId?: string;
}

interface RunState {
  span: Span;
  calls: Map<string, unknown>;
}

const RUN = createContextKey('threadwise run');
const AGENT = 'threadwise';

export interface RunTracer {
  traceRun<T>(place: RunPlace, body: () => Promise<T>): Promise<T>;
  /** Feed every engine event of the run (wire beside the metrics' `onEvent`). */
  observe(event: AgentEvent): void;
  wrapModel(model: ChatModel): ChatModel;
  wrapFetch<I extends { method?: string }, R>(request: (url: string, init: I) => Promise<R>): (url: string, init: I) => Promise<R>;
}

export function createRunTracer(tracer: Tracer, options: { captureContent: boolean }): RunTracer {
  const capture = options.captureContent;
  const current = () => context.active().getValue(RUN) as RunState | undefined;

  return {
    traceRun(place, body) {
      const attributes = {
        'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': AGENT, 'gen_ai.provider.name': 'openai',
        'discord.channel.id': place.channelId,
        ...(place.guildId ? { 'discord.guild.id': place.guildId } : {}),
        ...(place.threadId ? { 'discord.thread.id': place.threadId, 'gen_ai.conversation.id': place.threadId } : {}),
      };
      return tracer.startActiveSpan(`invoke_agent ${AGENT}`, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
        const state: RunState = { span, calls: new Map() };
        return ended(span, () => context.with(context.active().setValue(RUN, state), body));
      });
    },

    observe(event) {
      const state = current();
      if (!state) return;
      switch (event.type) {
        case 'action':
          state.calls.set(event.callId, event.input);
          return;
        case 'observation': {
          const end = Date.now();
          const input = state.calls.get(event.callId);
          state.calls.delete(event.callId);
          const span = tracer.startSpan(`execute_tool ${event.tool}`, {
            kind: SpanKind.INTERNAL,
            startTime: end - event.durationMs,
            attributes: {
              'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': event.tool, 'gen_ai.tool.call.id': event.callId,
              'gen_ai.tool.type': 'function', 'threadwise.tool.outcome': event.isError ? 'error' : 'ok',
              'threadwise.tool.duration_ms': event.durationMs,
              ...(capture ? { 'gen_ai.tool.call.arguments': boundedJson(input ?? null, TRACE_JSON), 'gen_ai.tool.call.result': event.output.slice(0, TRACE_JSON.maxChars) } : {}),
            },
          }, trace.setSpan(context.active(), state.span));
          if (event.isError) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', 'tool_error');
          span.end(end);
          return;
        }
        case 'answer':
          if (capture) state.span.setAttribute('gen_ai.output.messages', boundedJson([{ role: 'assistant', parts: [{ type: 'text', content: event.text }] }], TRACE_JSON));
          return;
        case 'error':
          state.span.setStatus({ code: SpanStatusCode.ERROR, message: event.code }).setAttribute('error.type', event.code);
          return;
        case 'run-end':
          state.span.setAttributes({
            'threadwise.run.reason': event.reason, 'threadwise.run.steps': event.steps,
            'gen_ai.usage.input_tokens': event.usage.promptTokens, 'gen_ai.usage.output_tokens': event.usage.completionTokens,
          });
          return;
        default:
          return;
      }
    },

    wrapModel(model) {
      return {
        get model() {
          return model.model;
        },
        get key() {
          return model.key;
        },
        complete(request: ModelRequest): Promise<ModelReply> {
          if (!current()) return model.complete(request);
          return tracer.startActiveSpan(`chat ${model.model}`, {
            kind: SpanKind.CLIENT,
            attributes: {
              'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': model.model,
              ...(request.maxTokens ? { 'gen_ai.request.max_tokens': request.maxTokens } : {}),
              ...(capture ? { 'gen_ai.input.messages': boundedJson(request.messages, TRACE_JSON) } : {}),
            },
          }, async (span) => {
            const started = performance.now();
            let first: number | undefined;
            const onDelta = request.onDelta;
            return ended(span, async () => {
              const reply = await model.complete({
                ...request,
                onDelta: (delta) => {
                  first ??= performance.now();
                  onDelta?.(delta);
                },
              });
              span.setAttributes({
                'gen_ai.usage.input_tokens': reply.usage.promptTokens, 'gen_ai.usage.output_tokens': reply.usage.completionTokens,
                ...(reply.finishReason ? { 'gen_ai.response.finish_reasons': [reply.finishReason] } : {}),
                ...(first !== undefined ? { 'gen_ai.response.time_to_first_chunk': (first - started) / 1000 } : {}),
                ...(capture ? { 'gen_ai.output.messages': boundedJson([{ role: 'assistant', content: reply.content, tool_calls: reply.toolCalls }], TRACE_JSON) } : {}),
              });
              return reply;
            });
          });
        },
      };
    },

    wrapFetch(request) {
      return async (url, init) => {
        if (!current()) return request(url, init);
        const method = (init.method ?? 'GET').toUpperCase();
        const route = routeTemplate(url);
        return tracer.startActiveSpan(`${method} ${route}`, {
          kind: SpanKind.CLIENT,
          attributes: { 'http.request.method': method, 'url.template': route, 'server.address': new URL(url).hostname },
        }, (span) => ended(span, async () => {
          const response = (await request(url, init)) as { status?: number };
          if (typeof response?.status === 'number') {
            span.setAttribute('http.response.status_code', response.status);
            if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', String(response.status));
          }
          return response as Awaited<ReturnType<typeof request>>;
        }));
      };
    },
  };
}

/** Run `work` in `span`: an error is recorded on the span (and thrown on), and the span ends either way. */
async function ended<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
    throw error;
  } finally {
    span.end();
  }
}

/** `/api/v10/channels/123…/messages` → `/channels/:id/messages`; webhook and interaction tokens become `:token`. */
export function routeTemplate(url: string): string {
  return new URL(url).pathname
    .replace(/^\/api(\/v\d+)?/, '')
    .replace(/^\/(webhooks|interactions)\/(\d+)\/[^/]+/, '/$1/$2/:token')
    .replace(/\d{17,20}/g, ':id');
}
