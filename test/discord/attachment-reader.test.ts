import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedSource, createAttachmentReader, userContent, type AttachmentRef, type AttachmentReaderOptions } from '../../src/discord/attachments.js';

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
    const started = Date.now();
    const [silent, latin1] = await reader.read([file('s.txt', `${origin}/silent.txt`), file('l.txt', `${origin}/latin1.txt`)], 'm');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(silent).toMatchObject({ outcome: 'not-read', why: 'it could not be downloaded (no answer within 0.3 s)' });
    expect(latin1).toMatchObject({ outcome: 'not-read', why: 'it is not UTF-8 text' });
  });

  it('shortens a text file to its token allowance and says so', async () => {
    const reader = createAttachmentReader({ ...base, extraOrigins: [origin], maxTextTokens: 1, shorten: (text, max) => `${text.split(' ').slice(0, max).join(' ')} [… shortened]` });
    const [read] = await reader.read([file('ok.txt', `${origin}/ok.txt`)], 'm');
    expect(read).toMatchObject({ outcome: 'shortened' });
    expect(read!.parts[0]).toEqual({ type: 'text', text: '[attached file: ok.txt]\nplain [… shortened]\n[end of ok.txt]' });
  });

  it('sends parts only when an image is among the files, so text-only servers still get a string', () => {
    const text = { name: 'a.txt', outcome: 'read' as const, parts: [{ type: 'text' as const, text: '[attached file: a.txt]\nhi\n[end of a.txt]' }] };
    const image = { name: 'b.png', outcome: 'read' as const, parts: [{ type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AA==' } }] };
    expect(userContent('Q?', [])).toBe('Q?');
    expect(userContent('Q?', [text])).toBe('Q?\n\n[attached file: a.txt]\nhi\n[end of a.txt]');
    expect(userContent('Q?', [text, image])).toEqual([{ type: 'text', text: 'Q?' }, ...text.parts, ...image.parts]);
  });
});
