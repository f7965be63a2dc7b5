/**
 * The reply's event stream, read without the SDK's reader: chunks must come out the same however the
 * bytes are cut, whatever line endings and comments a server writes, and every failure must say what
 * it was. The last part goes through the real client and a raw HTTP server, to see the connection kept
 * after `[DONE]` and a stream that is not JSON named as such.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/errors.js';
import { TEXT_CAPS } from '../../src/agent/text-caps.js';
import { readSseChunks } from '../../src/llm/sse-chunks.js';
import { clientFor, failure, recording } from './helpers.js';

const encode = (text: string) => new TextEncoder().encode(text);

/** The bytes of `text`, cut every `size` bytes (through multi-byte characters too), counting reads. */
function pieces(text: string, size: number) {
  const bytes = encode(text);
  const reads = { count: 0 };
  const body: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      for (let at = 0; at < bytes.length; at += size) {
        reads.count++;
        yield bytes.slice(at, at + size);
      }
    },
  };
  return { body, reads };
}

const chunk = (content: string) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });

async function contents(text: string, size: number): Promise<string[]> {
  const seen: string[] = [];
  await readSseChunks(pieces(text, size).body, new Headers(), (c) => {
    seen.push(c.choices[0]!.delta.content!);
    return false;
  });
  return seen;
}

describe('reading a reply\'s server-sent events', () => {
  const words = ['Grüße ', 'aus ', 'Köln 🌍', ' — fin'];
  const stream = words.map((w) => `data: ${chunk(w)}\n\n`).join('') + 'data: [DONE]\n\n';

  it('gives the same chunks however the bytes are cut, through multi-byte characters too', async () => {
    for (const size of [1, 2, 3, 7, 64, stream.length]) expect(await contents(stream, size), `cut every ${size} bytes`).toEqual(words);
  });

  it('reads CRLF line endings, comments, a field without its space and data over two lines', async () => {
    const crlf = `: ping\r\n\r\ndata:${chunk('a')}\r\n\r\nevent: message\r\ndata: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m",\r\ndata: "choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}\r\n\r\ndata: [DONE]\r\n\r\n`;
    expect(await contents(crlf, 5)).toEqual(['a', 'b']);
  });

  it('reads a last event the server did not end with a blank line', async () => {
    expect(await contents(`data: ${chunk('a')}\n\ndata: ${chunk('b')}`, 4)).toEqual(['a', 'b']);
  });

  it('ignores what follows [DONE] but reads the body to its end (the connection can be used again)', async () => {
    const text = `data: ${chunk('a')}\n\ndata: [DONE]\n\ndata: ${chunk('late')}\n\n`;
    const { body, reads } = pieces(text, 10);
    const seen: string[] = [];
    const stoppedEarly = await readSseChunks(body, new Headers(), (c) => (seen.push(c.choices[0]!.delta.content!), false));
    expect(seen).toEqual(['a']);
    expect(stoppedEarly).toBe(false);
    expect(reads.count).toBe(Math.ceil(encode(text).length / 10));
  });

  it('stops reading, and says so, once the caller wants no more', async () => {
    const { body, reads } = pieces(stream, 8);
    const seen: string[] = [];
    const stoppedEarly = await readSseChunks(body, new Headers(), (c) => (seen.push(c.choices[0]!.delta.content!), seen.length === 2));
    expect(seen).toEqual(words.slice(0, 2));
    expect(stoppedEarly).toBe(true);
    expect(reads.count).toBeLessThan(Math.ceil(encode(stream).length / 8));
  });

  it('throws an error sent inside the stream as the SDK does, with its words and the reply headers', async () => {
    const headers = new Headers({ 'x-request-id': 'r1' });
    const text = `data: ${chunk('a')}\n\ndata: {"error":{"message":"Context size has been exceeded.","type":"server_error"}}\n\n`;
    const error = await readSseChunks(pieces(text, 9).body, headers, () => false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('Context size has been exceeded.');
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('x-request-id')).toBe('r1');
  });

  it('throws an error event whose JSON has no error field, with its words', async () => {
    const text = `data: ${chunk('a')}\n\nevent: error\ndata: {"message":"Model is overloaded, try later."}\n\n`;
    const error = await readSseChunks(pieces(text, 7).body, new Headers(), () => false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('Model is overloaded, try later.');
  });

  it('names an event that is not JSON, quoting it', async () => {
    const error = await readSseChunks(pieces('data: <html>Bad gateway</html>\n\n', 6).body, new Headers(), () => false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: 'server', message: expect.stringContaining('not JSON: <html>Bad gateway</html>') });
  });

  it('names an event whose JSON is not an object, quoting it', async () => {
    for (const data of ['null', '42', '"text"', '[1,2]']) {
      const error = await readSseChunks(pieces(`data: ${data}\n\n`, 3).body, new Headers(), () => false).catch((e: unknown) => e);
      expect(error, data).toMatchObject({ kind: 'server', message: `The model server sent a stream event that is not a JSON object: ${data}` });
    }
  });

  it('passes on what the caller throws, and reads nothing after it', async () => {
    const { body, reads } = pieces(stream, 4);
    const thrown = new Error('the caller failed');
    await expect(readSseChunks(body, new Headers(), () => { throw thrown; })).rejects.toBe(thrown);
    expect(reads.count).toBeLessThan(Math.ceil(encode(stream).length / 4));
  });

  it('refuses one event that never ends, rather than buffering it without limit', async () => {
    const endless = `data: ${'x'.repeat(TEXT_CAPS.serverEvent + 10)}`;
    const error = await readSseChunks(pieces(endless, 1 << 20).body, new Headers(), () => false).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'server', message: expect.stringContaining('without ending it') });
  });
});

describe('the real client over a raw event stream', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    server = undefined;
  });

  /** A server that writes `body` as an event stream, a few bytes per write, and ends it a little later; counts the connections made. */
  async function rawServer(body: string) {
    const connections = { count: 0 };
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const bytes = encode(body);
        for (let at = 0; at < bytes.length; at += 5) {
          res.write(bytes.slice(at, at + 5));
          await new Promise((r) => setImmediate(r));
        }
        // A server may take a moment to close its reply after [DONE]: a client that cancelled the body then would lose the connection.
        setTimeout(() => res.end(), 30);
      });
    });
    server.on('connection', () => connections.count++);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return { client: clientFor({ baseURL }), connections };
  }

  it('assembles a reply written a few bytes at a time, and keeps the connection for the next request', async () => {
    const stream = ['Grüße ', 'aus ', 'Köln 🌍'].map((w) => `data: ${chunk(w)}\n\n`).join('') + 'data: [DONE]\n\n';
    const { client, connections } = await rawServer(stream);
    const first = recording();
    expect((await client.complete(first.request)).content).toBe('Grüße aus Köln 🌍');
    expect(first.text('content')).toBe('Grüße aus Köln 🌍');
    await new Promise((r) => setTimeout(r, 20)); // undici puts a socket back in its pool a moment after the body ends
    expect((await client.complete(recording().request)).content).toBe('Grüße aus Köln 🌍');
    expect(connections.count).toBe(1);
  });

  it('fails a stream that is not JSON with a server error that quotes it, and does not resend it', async () => {
    const { client, connections } = await rawServer('data: upstream timed out\n\n');
    const error = await failure(client.complete(recording().request));
    expect(error.kind).toBe('server');
    expect(error.message).toContain('not JSON: upstream timed out');
    expect(connections.count).toBe(1);
  });
});
