import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedSource, createAttachmentReader, userContent, type AttachmentRef, type AttachmentReaderOptions } from '../../src/discord/files/attachments.js';
import { TokenCounter } from '../../src/state/context/token-counter.js';

/** About 99 KB of log lines, different in every file. */
const bigLog = (n: number) => Array.from({ length: 1_500 }, (_, i) => `2026-05-0${n % 9} 12:${String(i % 60).padStart(2, '0')} worker-${n} request ${i * 7919} took ${i % 997} ms`).join('\n').slice(0, 99_000);

/** A stand-in file server: each path behaves badly in its own way. */
let server: http.Server;
let origin = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    switch (req.url) {
      case '/ok.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return void res.end('plain words');
      case '/endless.txt':
        // No Content-Length, and far more than any cap: the reader must stop on its own.
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 200; i++) res.write('y'.repeat(1_000));
        return void res.end();
      case '/redirect.txt':
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        return void res.end();
      case '/latin1.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return void res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      case '/big-0.log': case '/big-1.log': case '/big-2.log': case '/big-3.log': case '/big-4.log':
      case '/big-5.log': case '/big-6.log': case '/big-7.log': case '/big-8.log': case '/big-9.log':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return void res.end(bigLog(Number(req.url.slice(5, 6))));
      case '/silent.txt':
        return; // never answers
      default:
        res.writeHead(404);
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const base: AttachmentReaderOptions = { maxTextBytes: 10_000, maxImageBytes: 10_000, takesImages: () => true, timeoutMs: 300 };
const file = (name: string, url: string, size = 10): AttachmentRef => ({ name, url, contentType: null, size });

describe('reading attached files', () => {
  it('fetches only from Discord\'s CDN over https, and from origins the composition root allows', () => {
    expect(allowedSource('https://cdn.discordapp.com/attachments/1/2/a.txt?ex=1&is=2&hm=3&')).toBe(true);
    expect(allowedSource('https://media.discordapp.net/attachments/1/2/a.png')).toBe(true);
    for (const url of ['http://cdn.discordapp.com/a.txt', 'https://cdn.discordapp.com.evil.example/a.txt', 'https://cdn.discordapp.com:8443/a.txt', 'https://user@cdn.discordapp.com/a.txt', 'https://example.com/a.txt', 'not a url']) {
      expect(allowedSource(url), url).toBe(false);
    }
    expect(allowedSource(`${origin}/ok.txt`)).toBe(false);
    expect(allowedSource(`${origin}/ok.txt`, [origin])).toBe(true);
  });

  it('never fetches a file from anywhere else, and says why it was not read', async () => {
    let fetched = 0;
    const reader = createAttachmentReader({ ...base, fetch: async () => (fetched++, new Response('secret')) });
    const [read] = await reader.read([file('a.txt', 'https://example.com/a.txt')], 'm');
    expect(fetched).toBe(0);
    expect(read).toMatchObject({ outcome: 'not-read', why: 'it is not on Discord\'s file server' });
  });

  it('stops reading at the size cap even when the server sends no length, and refuses redirects', async () => {
    const reader = createAttachmentReader({ ...base, extraOrigins: [origin] });
    const [endless, redirect, ok] = await reader.read([file('endless.txt', `${origin}/endless.txt`), file('r.txt', `${origin}/redirect.txt`), file('ok.txt', `${origin}/ok.txt`)], 'm');
    expect(endless).toMatchObject({ outcome: 'not-read', why: 'it is larger than the 10 KB I read' });
    expect(redirect).toMatchObject({ outcome: 'not-read', why: 'it could not be downloaded (the file server redirected elsewhere)' });
    expect(ok!.parts).toEqual([{ type: 'text', text: '[attached file: ok.txt]\nplain words\n[end of ok.txt]' }]);
  });

  it('gives up on a silent file server after the timeout, and on text that is not UTF-8', async () => {
    const reader = createAttachmentReader({ ...base, extraOrigins: [origin] });
    // silent.txt never answers: only the 0.3 s timeout lets read() return.
    const [silent, latin1] = await reader.read([file('s.txt', `${origin}/silent.txt`), file('l.txt', `${origin}/latin1.txt`)], 'm');
    expect(silent).toMatchObject({ outcome: 'not-read', why: 'it could not be downloaded (no answer within 0.3 s)' });
    expect(latin1).toMatchObject({ outcome: 'not-read', why: 'it is not UTF-8 text' });
  });

  it('shortens a text file to what is left of the budget and says so', async () => {
    const counter = new TokenCounter('o200k_base');
    const reader = createAttachmentReader({
      ...base, maxTextBytes: 100_000, extraOrigins: [origin], maxTextTokens: 200,
      shorten: (text, max) => counter.shorten(text, max), countTokens: (text) => counter.text(text),
    });
    const [read] = await reader.read([file('big.log', `${origin}/big-1.log`, 99_000)], 'm');
    expect(read).toMatchObject({ outcome: 'shortened', why: 'shortened to fit the conversation' });
    const text = (read!.parts[0] as { text: string }).text;
    expect(text).toMatch(/^\[attached file: big\.log\]\n2026-05-01 12:00 worker-1 [\s\S]*\[… shortened: \d+ of \d+ tokens left out\]\n\[end of big\.log\]$/);
    expect(counter.text(text)).toBeLessThanOrEqual(200);
  });

  it('gives the text files of one message one shared budget: ten 99 KB files stay within it', async () => {
    const counter = new TokenCounter('o200k_base');
    const budget = 4_000; // half of HISTORY_TOKEN_BUDGET's default, 8,000
    const reader = createAttachmentReader({
      ...base, maxTextBytes: 100_000, extraOrigins: [origin], maxTextTokens: budget,
      shorten: (text, max) => counter.shorten(text, max), countTokens: (text) => counter.text(text),
    });
    const files = Array.from({ length: 10 }, (_, i) => file(`part-${i}.log`, `${origin}/big-${i}.log`, 99_000));
    const read = await reader.read(files, 'm');
    const textTokens = read.filter((f) => f.outcome !== 'not-read').flatMap((f) => f.parts).reduce((n, p) => n + (p.type === 'text' ? counter.text(p.text) : 0), 0);
    expect(textTokens).toBeLessThanOrEqual(budget);
    expect(textTokens).toBeGreaterThan(budget * 0.8); // the budget is used, not thrown away
    expect(read[0]).toMatchObject({ outcome: 'shortened' });
    for (const skipped of read.slice(1)) {
      expect(skipped).toMatchObject({ outcome: 'not-read', why: expect.stringMatching(/files of this message already take the 4000 tokens/) });
      expect(skipped.parts[0]).toEqual({ type: 'text', text: expect.stringMatching(/^\[attached file part-\d\.log \(99 KB\) was not read: /) });
    }
    // The whole question, with its notes, stays within the budget too (plus the notes' few tokens each).
    expect(counter.text(userContent('What went wrong?', read) as string)).toBeLessThanOrEqual(budget + 10 * 40);
  });

  it('reads small files whole while they fit, in the order they were attached', async () => {
    const counter = new TokenCounter('o200k_base');
    const reader = createAttachmentReader({
      ...base, maxTextBytes: 100_000, extraOrigins: [origin], maxTextTokens: 200,
      shorten: (text, max) => counter.shorten(text, max), countTokens: (text) => counter.text(text),
    });
    const read = await reader.read([file('a.txt', `${origin}/ok.txt`), file('b.txt', `${origin}/ok.txt`), file('c.log', `${origin}/big-1.log`, 99_000)], 'm');
    expect(read.map((f) => f.outcome)).toEqual(['read', 'read', 'shortened']);
  });

  it('sends parts only when an image is among the files, so text-only servers still get a string', () => {
    const text = { name: 'a.txt', outcome: 'read' as const, parts: [{ type: 'text' as const, text: '[attached file: a.txt]\nhi\n[end of a.txt]' }] };
    const image = { name: 'b.png', outcome: 'read' as const, parts: [{ type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AA==' } }] };
    expect(userContent('Q?', [])).toBe('Q?');
    expect(userContent('Q?', [text])).toBe('Q?\n\n[attached file: a.txt]\nhi\n[end of a.txt]');
    expect(userContent('Q?', [text, image])).toEqual([{ type: 'text', text: 'Q?' }, ...text.parts, ...image.parts]);
  });
});
