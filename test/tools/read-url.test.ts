/**
 * The `read_url` tool against servers started here on 127.0.0.1. Host names are resolved by an injected
 * lookup, so a "public" name can be made to point anywhere without DNS; the network guard would fail
 * any test that let a connection to a non-loopback address through.
 */
import type { LookupAddress } from 'node:dns';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../src/agent/tool.js';
import { createDocumentParser } from '../../src/knowledge/parse/document-parser.js';
import { createToolbox } from '../../tools/index.js';
import { createReadUrlTool, type ReadUrlOptions } from '../../tools/read-url.js';
import { DEEP_PAGE, DEEPEST, SLOW_PAGE } from './fixtures/hostile-pages.js';
import { startLocalServer, type LocalServer } from './helpers/local-server.js';
import { outputOf, toolContext } from './helpers/tool-context.js';

const ARTICLE = `<!doctype html><html><head><title>Tide pools &amp; you</title>
<style>body { color: red }</style><script>document.write("tracking")</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<main><h1>Tide pools</h1><p>Tide pools are rocky pools on the shore.</p>
<ul><li>Anemones</li><li>Sea stars</li></ul><!-- a comment --></main>
<footer>© 2025 Example</footer></body></html>`;

/** DNS for the tests: every name here is made up, and each points where the test needs it. */
const DNS: Record<string, string[]> = {
  'news.example.com': ['127.0.0.1'],
  'intranet.example.com': ['10.1.2.3'],
  'metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': ['93.184.216.34', '192.168.0.10'],
};
const lookup = async (hostname: string): Promise<LookupAddress[]> => {
  const addresses = DNS[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('read_url', () => {
  let server: LocalServer;
  // Pages are read in a worker; one for the file, started by the first page.
  const pages = createDocumentParser();
  const tool = (options: Partial<ReadUrlOptions> = {}) =>
    createReadUrlTool({ userAgent: 'threadwise-tests', allowLoopbackForTests: true, lookup, pages, ...options });
  const read = async (url: string, options: Partial<ReadUrlOptions> = {}) =>
    (await tool(options).run({ url }, toolContext())) as ToolOutput;

  beforeAll(async () => {
    const html = (body: string | Buffer, headers: Record<string, string> = {}) =>
      ((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...headers }).end(body)) as Parameters<LocalServer['route']>[1];
    server = await startLocalServer({
      '/article': html(ARTICLE),
      '/plain': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('Just   text.\n\n\n\nSecond line.'),
      '/latin1': html(Buffer.from('<title>Caf\xe9</title><p>Cr\xe8me br\xfbl\xe9e</p>', 'latin1'), { 'Content-Type': 'text/html; charset=ISO-8859-1' }),
      '/image': (_req, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.alloc(100)),
      '/binary': (_req, res) => res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(Buffer.alloc(100)),
      '/untyped': (_req, res) => res.writeHead(200).end('who knows'),
      '/missing': (_req, res) => res.writeHead(404, 'Not Found', { 'Content-Type': 'text/html' }).end('<p>nope</p>'),
      '/endless': (_req, res) => {
        // Never ends: only a reader that stops at its cap gets past this.
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        const chunk = 'All work and no play. '.repeat(3_000);
        const pump = () => {
          while (res.write(chunk)) if (res.destroyed) return;
          res.once('drain', pump);
        };
        pump();
      },
      '/bomb': html(zlib.gzipSync(Buffer.alloc(50_000_000, 'a')), { 'Content-Encoding': 'gzip' }),
      '/gzip': html(zlib.gzipSync(ARTICLE), { 'Content-Encoding': 'gzip' }),
      '/deep': html(DEEP_PAGE),
      '/slow': html(SLOW_PAGE),
      '/silent': () => {
        /* never answers */
      },
      '/trickle': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('first bytes ');
      },
      '/to-metadata': (_req, res) => res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end(),
      '/to-intranet': (_req, res) => res.writeHead(301, { Location: 'http://intranet.example.com/admin' }).end(),
      '/to-file': (_req, res) => res.writeHead(302, { Location: 'file:///etc/passwd' }).end(),
      '/to-article': (_req, res) => res.writeHead(307, { Location: '/article' }).end(),
      '/loop': (_req, res) => res.writeHead(302, { Location: '/loop' }).end(),
    });
  });
  afterAll(async () => {
    await server.close();
    await pages.close();
  });

  it("reads a page's title and main text, without scripts, styles, navigation or footer", async () => {
    const result = await read(`${server.origin}/article`);
    expect(result.output).toBe(
      `Title: Tide pools & you\nURL: ${server.origin}/article\n\nTide pools\n\nTide pools are rocky pools on the shore.\n\n- Anemones\n- Sea stars`,
    );
    expect(result.sources).toEqual([{ title: 'Tide pools & you', url: `${server.origin}/article` }]);
    expect(server.requests.at(-1)!.headers['user-agent']).toBe('threadwise-tests');
  });

  it('reads plain text and decodes the declared charset', async () => {
    expect((await read(`${server.origin}/plain`)).output).toBe(`URL: ${server.origin}/plain\n\nJust text.\n\nSecond line.`);
    expect((await read(`${server.origin}/latin1`)).output).toContain('Title: Café');
    expect((await read(`${server.origin}/latin1`)).output).toContain('Crème brûlée');
  });

  it('reads a gzip-compressed page', async () => {
    expect((await read(`${server.origin}/gzip`)).output).toContain('Tide pools are rocky pools on the shore.');
  });

  it('reads a page nested too deep to look for its article as plain text, and tells the model why', async () => {
    expect((await read(`${server.origin}/deep`)).output).toBe(
      `Title: Deep\nURL: ${server.origin}/deep\n\n${DEEPEST}\n\n[read as plain text, not by its article: its markup nests 90,002 levels deep (an article is looked for up to 512)]`,
    );
  });

  it("reads a page whose article search passes the page reader's limit as plain text, and tells the model why", async () => {
    // 300 ms (the toolbox's: 5 s): SLOW_PAGE keeps Readability busy for seconds, so it passes the limit by far.
    const quick = createDocumentParser({ timeoutMs: 300, timeoutSetting: '' });
    try {
      const { output } = (await tool({ pages: quick }).run({ url: `${server.origin}/slow` }, toolContext())) as ToolOutput;
      expect(output).toContain('Some words that make up a paragraph');
      expect(output.endsWith("; read as plain text, not by its article: finding its article took longer than 300 ms, the reader's limit]")).toBe(true);
    } finally {
      await quick.close();
    }
  });

  it('connects to the checked address while sending the name as Host, for a name that resolves to loopback', async () => {
    const result = await read(`http://news.example.com:${server.port}/article`);
    expect(result.output).toContain('Tide pools are rocky pools');
    expect(server.requests.at(-1)!.headers.host).toBe(`news.example.com:${server.port}`);
  });

  it('follows a relative redirect', async () => {
    expect((await read(`${server.origin}/to-article`)).output).toContain(`URL: ${server.origin}/article`);
  });

  const refusedWithoutAllowance: Array<[string, RegExp]> = [
    ['http://127.0.0.1/', /127\.0\.0\.1: it is a loopback address/],
    ['http://10.0.0.1/', /a private network address/],
    ['http://169.254.169.254/latest/meta-data/', /link-local address \(where cloud metadata/],
    ['http://[::1]:8080/', /::1: it is a loopback address/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://[fd00:ec2::254]/', /unique-local/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://2130706433/', /127\.0\.0\.1: it is a loopback/], // decimal spelling of 127.0.0.1
    ['http://0x7f.1/', /127\.0\.0\.1: it is a loopback/],
    ['http://localhost/', /resolves to (127\.0\.0\.1|::1), a loopback/],
    ['file:///etc/passwd', /Only http and https addresses can be read \(got file:\)/],
    ['ftp://example.com/file.txt', /got ftp:/],
    ['gopher://example.com/', /got gopher:/],
    ['javascript:alert(1)', /got javascript:/],
    ['http://user:secret@example.com/', /user name or password/],
    ['not a url', /is not a valid URL/],
  ];
  it.each(refusedWithoutAllowance)('without the test allowance refuses %s', async (url, reason) => {
    const production = createReadUrlTool({ userAgent: 'threadwise-tests', pages });
    await expect(production.run({ url }, toolContext())).rejects.toThrow(reason);
  });

  it('refuses a public-looking name that resolves to a private address, before connecting', async () => {
    const before = server.requests.length;
    await expect(read(`http://news.example.com:${server.port}/article`, { allowLoopbackForTests: false })).rejects.toThrow(
      /Refusing to read news\.example\.com: it resolves to 127\.0\.0\.1, a loopback address/,
    );
    await expect(read('http://intranet.example.com/')).rejects.toThrow(/resolves to 10\.1\.2\.3, a private network address/);
    expect(server.requests.length).toBe(before);
  });

  it('refuses a name when any of its addresses is private', async () => {
    await expect(read('http://mixed.example.com/')).rejects.toThrow(/resolves to 192\.168\.0\.10/);
  });

  it('refuses a redirect to a private address, whether written as an address or a name', async () => {
    await expect(read(`${server.origin}/to-metadata`)).rejects.toThrow(/Refusing to read 169\.254\.169\.254/);
    await expect(read(`http://news.example.com:${server.port}/to-intranet`)).rejects.toThrow(
      /Refusing to read intranet\.example\.com: it resolves to 10\.1\.2\.3/,
    );
    await expect(read(`${server.origin}/to-file`)).rejects.toThrow(/got file:/);
  });

  it('stops after five redirects', async () => {
    await expect(read(`${server.origin}/loop`)).rejects.toThrow(/redirected more than 5 times/);
  });

  it('stops reading at the size cap, even from a server that never stops sending', async () => {
    const result = await read(`${server.origin}/endless`, { maxBytes: 200_000 });
    expect(result.output).toContain('All work and no play.');
    expect(result.output).toContain('only the first 200 KB of the page were read');
    expect(result.output).toContain('text cut to 4000 characters');
    expect(result.output.length).toBeLessThan(4_200);
  });

  it('applies the size cap to decompressed bytes, so a gzip bomb stops early', async () => {
    const result = await read(`${server.origin}/bomb`, { maxBytes: 100_000 });
    expect(result.output).toContain('only the first 100 KB of the page were read');
  });

  it.each([
    ['/image', /is image\/png, not a web page or text/],
    ['/binary', /is application\/octet-stream/],
    ['/untyped', /of an unknown type/],
  ])('refuses a response that is not text (%s)', async (path, reason) => {
    await expect(read(`${server.origin}${path}`)).rejects.toThrow(reason);
  });

  it('reports an HTTP error status', async () => {
    await expect(read(`${server.origin}/missing`)).rejects.toThrow(/answered HTTP 404 Not Found/);
  });

  it('gives up when the server does not answer in time, or stops part-way', async () => {
    const started = performance.now();
    await expect(read(`${server.origin}/silent`, { timeoutMs: 300 })).rejects.toThrow(/did not answer in time/);
    await expect(read(`${server.origin}/trickle`, { timeoutMs: 300 })).rejects.toThrow(/did not answer in time/);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('stops when the run is cancelled', async () => {
    const controller = new AbortController();
    const pending = tool().run({ url: `${server.origin}/silent` }, toolContext({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('cancelled by user')), 50);
    await expect(pending).rejects.toThrow(/cancelled/);
  });

  it('is off by default in the toolbox and cannot reach loopback there', async () => {
    const toolbox = createToolbox({ wikipediaApiUrl: `${server.origin}/w/api.php`, userAgent: 'threadwise-tests' });
    try {
      const readUrl = toolbox.tools.find((t) => t.name === 'read_url')!;
      expect(readUrl.network).toBe(true);
      await expect(readUrl.run({ url: `${server.origin}/article` }, toolContext())).rejects.toThrow(/loopback/);
      expect(outputOf(await toolbox.tools.find((t) => t.name === 'current_time')!.run({}, toolContext()))).toContain('2025');
    } finally {
      await toolbox.close();
    }
  });
});
