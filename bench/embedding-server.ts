/**
 * A local OpenAI-compatible `/v1/embeddings` for the meaning-search bench: vectors of `dims` floats
 * made from the words of each input (each word adds a few pseudo-random ±1 components, as a sparse
 * random projection does), so similar texts are near and the answers are as large as a real 512-float
 * model's. It answers at once: what the bench measures is the bot's own cost around the server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The server, its base URL, and how many requests and inputs it has answered. */
export interface BenchEmbeddings {
  baseURL: string;
  requests: number;
  inputs: number;
  close(): Promise<void>;
}

function wordHash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The vector of `text`: 4 components of ±1 per word, placed by the word's hash. */
export function benchVector(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = wordHash(word);
    for (let k = 0; k < 4; k++) {
      h = Math.imul(h ^ (h >>> 15), 2246822507) >>> 0;
      v[h % dims]! += h & 1 ? 1 : -1;
    }
  }
  return v;
}

export async function startBenchEmbeddings(dims: number): Promise<BenchEmbeddings> {
  const state = { requests: 0, inputs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string[] };
      state.requests += 1;
      state.inputs += body.input.length;
      const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: benchVector(text, dims) }));
      const tokens = body.input.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
      const json = JSON.stringify({ object: 'list', data, model: 'bench', usage: { prompt_tokens: tokens, total_tokens: tokens } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }).end(json);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get requests() { return state.requests; },
    get inputs() { return state.inputs; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
