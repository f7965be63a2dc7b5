/**
 * Traces on (OTEL_EXPORTER_OTLP_ENDPOINT set): the OpenTelemetry Node SDK with a batching OTLP/HTTP
 * exporter (JSON), registered for this process so the run tracer's spans (src/ops/run-tracer.ts) and
 * their context flow through async calls. Loaded only when traces are on: off costs nothing.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import type { TracesConfig } from '../src/config.js';
import { createRunTracer, type RunTracer } from '../src/ops/run-tracer.js';

export interface Telemetry {
  tracer: RunTracer;
  /** Send what is still buffered, then stop. */
  shutdown(): Promise<void>;
}

export async function startTelemetry(config: TracesConfig, shard?: { id: number }): Promise<Telemetry> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, ...(shard ? { 'discord.shard.id': shard.id } : {}) }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${config.endpoint}/v1/traces` }))],
  });
  provider.register();
  return {
    tracer: createRunTracer(provider.getTracer('threadwise'), { captureContent: config.captureContent }),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
