/**
 * A fetch wrapper that puts servers' error bodies into OpenAI's shape before the SDK reads them.
 *
 * The SDK only looks at `body.error`. vLLM before 0.8 answers `{"object": "error", "message": …}`
 * at the top level, Ollama's and LM Studio's errors are `{"error": "text"}`, and Ollama has been
 * seen wrapping llama.cpp's whole error JSON in that string. Read as they are, the SDK reports
 * "400 status code (no body)" or a quoted JSON string, and the message that says what went wrong
 * (context too long, tools not supported) is lost. Successful responses pass through untouched.
 */

type Fetch = typeof fetch;

/** Wrap `base` so non-2xx JSON bodies always read `{"error": {"message": …, …}}`. */
export function errorBodyFetch(base: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.ok || !response.headers.get('content-type')?.includes('json')) return response;
    const text = await response.text();
    const headers = new Headers(response.headers);
    // The body below is already decoded and has a new length.
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(normalizeErrorBody(text), { status: response.status, statusText: response.statusText, headers });
  };
}

/** The error body in OpenAI's shape; text that is not JSON is left as it is. */
export function normalizeErrorBody(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify({ error: errorObject(body) });
}

function errorObject(body: unknown, depth = 0): Record<string, unknown> {
  if (typeof body === 'string') {
    // A string that is itself an error body (Ollama passing on llama.cpp's): read the inner one.
    if (depth < 2 && body.trimStart().startsWith('{')) {
      try {
        return errorObject(JSON.parse(body), depth + 1);
      } catch {
        // not JSON after all: the text is the message
      }
    }
    return { message: body };
  }
  if (!body || typeof body !== 'object') return { message: String(body) };
  const record = body as Record<string, unknown>;
  if ('error' in record && record.error !== null && record.error !== undefined) return errorObject(record.error, depth + 1);
  return record;
}
