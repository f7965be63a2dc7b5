/**
 * Ask an OpenAI-compatible server how long a context its loaded model has. Each server says it in
 * its own place:
 * - vLLM: `GET /v1/models` → `data[].max_model_len` (the `--max-model-len` it runs with);
 * - llama.cpp: `GET /props` → `default_generation_settings.n_ctx` (the `-c` it runs with, per
 *   slot); its `/v1/models` only has `meta.n_ctx_train`, what the model was trained for, used last;
 * - LM Studio: `GET /api/v0/models` → `loaded_context_length` (else `max_context_length`);
 * - gateways such as OpenRouter: `context_length` in `/v1/models`.
 * Ollama reports only the trained length, not the `num_ctx` it runs with, so it is not asked: set
 * MODEL_CONTEXT_TOKENS for it. Every probe is short and any failure just means "not reported".
 */

interface Probe {
  fetch: typeof fetch;
  apiKey?: string;
  signal?: AbortSignal;
  timeoutMs: number;
}

type Entry = Record<string, unknown> & { id?: unknown; meta?: Record<string, unknown> };

/** The context window the server reports for `model`, or undefined. Never throws. */
export async function discoverContextTokens(
  baseURL: string,
  model: string,
  options: { fetch?: typeof fetch; apiKey?: string; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<number | undefined> {
  const probe: Probe = { fetch: options.fetch ?? globalThis.fetch, apiKey: options.apiKey, signal: options.signal, timeoutMs: options.timeoutMs ?? 3_000 };
  const base = baseURL.replace(/\/+$/, '');
  const root = base.replace(/\/v1$/, '');

  const listed = entryFor(await getJson(probe, `${base}/models`), model);
  const direct = positive(listed?.max_model_len) ?? positive(listed?.loaded_context_length) ?? positive(listed?.context_length)
    ?? positive(listed?.context_window) ?? positive(listed?.max_context_length);
  if (direct) return direct;

  const props = (await getJson(probe, `${root}/props`)) as { default_generation_settings?: { n_ctx?: unknown }; n_ctx?: unknown } | undefined;
  const running = positive(props?.default_generation_settings?.n_ctx) ?? positive(props?.n_ctx);
  if (running) return running;

  const lmStudio = entryFor(await getJson(probe, `${root}/api/v0/models`), model);
  const loaded = positive(lmStudio?.loaded_context_length) ?? positive(lmStudio?.max_context_length);
  if (loaded) return loaded;

  return positive(listed?.meta?.n_ctx_train);
}

/** The listing's entry for `model`; a server with one model loaded answers for it whatever its id says. */
function entryFor(listing: unknown, model: string): Entry | undefined {
  const data = (listing as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return undefined;
  const entries = data.filter((e): e is Entry => !!e && typeof e === 'object');
  return entries.find((e) => e.id === model) ?? (entries.length === 1 ? entries[0] : undefined);
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

async function getJson(probe: Probe, url: string): Promise<unknown> {
  const timeout = AbortSignal.timeout(probe.timeoutMs);
  try {
    const response = await probe.fetch(url, {
      headers: probe.apiKey ? { authorization: `Bearer ${probe.apiKey}` } : {},
      signal: probe.signal ? AbortSignal.any([probe.signal, timeout]) : timeout,
    });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}
