/**
 * Where documents come from. URLs are fetched from a server started here on 127.0.0.1 with the
 * test-only loopback option; without it (as in the bot and the terminal) the address rules refuse
 * loopback and private addresses, on the first request and on every redirect.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  documentFromBytes, documentFromDiscordMessage, documentFromFile, documentFromUrl, KnowledgeInputError, listFolder, type UrlSourceOptions,
} from '../../src/knowledge/index.js';
import { startLocalServer, type LocalServer } from '../tools/helpers/local-server.js';
import { tempDir } from '../state/helpers/targets.js';

const MAX = 10_000;

describe('files and folders', () => {
  const dir = tempDir('kb-sources');
  const write = (name: string, content: string | Buffer) => {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return file;
  };
  beforeAll(() => {
    write('guide.md', '# Guide\n\nHello.');
    write('notes.TXT', 'Plain notes.');
    write('page.htm', '<title>Page</title><p>Hi</p>');
    write('sub/deeper/faq.markdown', '# FAQ');
    write('sub/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    write('config.json', '{}');
    write('.hidden/secret.md', '# nope');
    write('node_modules/pkg/readme.md', '# nope');
  });

  it('reads a file as a document whose source is its absolute path', async () => {
    const file = path.join(dir, 'guide.md');
    const doc = await documentFromFile(path.relative(process.cwd(), file), { maxFileBytes: MAX });
    expect(doc).toEqual({ source: file, link: undefined, title: undefined, format: 'markdown', content: '# Guide\n\nHello.' });
    expect((await documentFromFile(path.join(dir, 'notes.TXT'), { maxFileBytes: MAX })).format).toBe('text');
    expect((await documentFromFile(path.join(dir, 'page.htm'), { maxFileBytes: MAX })).format).toBe('html');
  });

  it('lists a folder\'s documents recursively, skipping other types, hidden folders and node_modules', async () => {
    const { files, skipped } = await listFolder(dir);
    expect(files.map((f) => path.relative(dir, f))).toEqual(['guide.md', 'notes.TXT', 'page.htm', path.join('sub', 'deeper', 'faq.markdown')]);
    expect(skipped.map((f) => path.relative(dir, f))).toEqual(['config.json', path.join('sub', 'logo.png')]);
  });

  it('refuses unknown types, binary content, missing files, folders and files over the cap', async () => {
    const refused = (file: string, max = MAX) => documentFromFile(path.join(dir, file), { maxFileBytes: max });
    await expect(refused('config.json')).rejects.toThrow(/unknown type; only \.md, \.markdown, \.txt, \.html, \.htm/);
    await expect(refused('sub/logo.png')).rejects.toThrow(/unknown type/);
    write('disguised.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    await expect(refused('disguised.md')).rejects.toThrow(/looks like a binary file/);
    write('latin1.txt', Buffer.from('caf\xe9 cr\xe8me', 'latin1'));
    await expect(refused('latin1.txt')).rejects.toThrow(/not UTF-8 text/);
    await expect(refused('missing.md')).rejects.toThrow(/no such file/);
    await expect(refused('sub')).rejects.toThrow(/not a file/);
    await expect(refused('guide.md', 5)).rejects.toThrow(/15 bytes; a document may be at most 5 bytes \(KNOWLEDGE_MAX_FILE_BYTES\)/);
    await expect(refused('guide.md', 5)).rejects.toBeInstanceOf(KnowledgeInputError);
  });

  it('decides an attachment\'s type by its media type when one is given', () => {
    const bytes = Buffer.from('# Title\n\nBody');
    expect(documentFromBytes({ name: 'notes.md', bytes, mediaType: 'text/plain', source: 's', maxFileBytes: MAX }).format).toBe('markdown');
    expect(documentFromBytes({ name: 'x', bytes, mediaType: 'text/html', source: 's', maxFileBytes: MAX }).format).toBe('html');
    expect(() => documentFromBytes({ name: 'x.md', bytes, mediaType: 'image/png', source: 's', maxFileBytes: MAX })).toThrow(/of type image\/png; only Markdown/);
    // A PDF is accepted by its type, but only when its bytes are one.
    expect(() => documentFromBytes({ name: 'x.md', bytes, mediaType: 'application/pdf', source: 's', maxFileBytes: MAX })).toThrow(/x\.md is not a PDF file, whatever its name says/);
  });
});

describe('URLs', () => {
  let server: LocalServer;
  const DNS: Record<string, string[]> = { 'docs.example.com': ['127.0.0.1'], 'intranet.example.com': ['10.0.0.7'] };
  const lookup = async (hostname: string): Promise<LookupAddress[]> => (DNS[hostname] ?? []).map((address) => ({ address, family: 4 }));
  const options = (extra: Partial<UrlSourceOptions> = {}): UrlSourceOptions => ({ userAgent: 'threadwise-tests', maxFileBytes: MAX, allowLoopbackForTests: true, lookup, ...extra });

  beforeAll(async () => {
    server = await startLocalServer({
      '/page': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<title>Rules</title><h1>Rules</h1><p>Be kind.</p>'),
      '/readme.md': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('# Readme\n\nText.'),
      '/moved': (_req, res) => res.writeHead(301, { Location: '/page' }).end(),
      '/to-intranet': (_req, res) => res.writeHead(302, { Location: 'http://intranet.example.com/admin' }).end(),
      '/huge': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('x'.repeat(MAX + 1)),
      '/image': (_req, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.alloc(10)),
      '/latin1': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain; charset=ISO-8859-1' }).end(Buffer.from('caf\xe9', 'latin1')),
      '/odd-charset': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain; charset=x-made-up' }).end('naïve'),
    });
  });
  afterAll(() => server.close());

  it('fetches a page: source is the URL as given, link is where it ended up, type from the media type', async () => {
    const doc = await documentFromUrl(`${server.origin}/moved#top`, options());
    expect(doc).toMatchObject({ source: `${server.origin}/moved`, link: `${server.origin}/page`, format: 'html' });
    expect(doc.content).toContain('Be kind.');
    expect((await documentFromUrl(`${server.origin}/readme.md`, options())).format).toBe('markdown');
    expect((await documentFromUrl(`http://docs.example.com:${server.port}/page`, options())).link).toBe(`http://docs.example.com:${server.port}/page`);
  });

  it('decodes the declared charset, and UTF-8 when the declared one is unknown', async () => {
    expect((await documentFromUrl(`${server.origin}/latin1`, options())).content).toBe('café');
    expect((await documentFromUrl(`${server.origin}/odd-charset`, options())).content).toBe('naïve');
  });

  it('refuses what the address rules refuse, before any request reaches the server', async () => {
    const before = server.requests.length;
    await expect(documentFromUrl(`${server.origin}/page`, options({ allowLoopbackForTests: false }))).rejects.toThrow(/Refusing to read 127\.0\.0\.1: it is a loopback address/);
    await expect(documentFromUrl('http://intranet.example.com/wiki', options())).rejects.toThrow(/resolves to 10\.0\.0\.7, a private network address/);
    await expect(documentFromUrl('http://169.254.169.254/latest/meta-data/', options())).rejects.toThrow(/link-local/);
    await expect(documentFromUrl('file:///etc/passwd', options())).rejects.toThrow(/Only http and https/);
    expect(server.requests.length).toBe(before);
    await expect(documentFromUrl(`${server.origin}/to-intranet`, options())).rejects.toBeInstanceOf(KnowledgeInputError);
  });

  it('refuses pages over the cap and types that are not text', async () => {
    await expect(documentFromUrl(`${server.origin}/huge`, options())).rejects.toThrow(/larger than 10 KB.*KNOWLEDGE_MAX_FILE_BYTES/);
    await expect(documentFromUrl(`${server.origin}/image`, options())).rejects.toThrow(/image\/png/);
  });
});

describe('Discord messages', () => {
  const ids = { guildId: '111111111111111111', channelId: '222222222222222222', messageId: '333333333333333333' };

  it('become Markdown documents cited by the message link, titled by author and first line, bound to their channel', () => {
    const doc = documentFromDiscordMessage({ ...ids, content: '\n## Raid night\u202e is **Thursday**\nBring potions.', authorName: 'Ada\u200b' });
    expect(doc).toEqual({
      source: 'https://discord.com/channels/111111111111111111/222222222222222222/333333333333333333',
      link: 'https://discord.com/channels/111111111111111111/222222222222222222/333333333333333333',
      title: 'Ada: Raid night is Thursday',
      format: 'markdown',
      content: '\n## Raid night\u202e is **Thursday**\nBring potions.',
      channelId: '222222222222222222',
    });
    expect(documentFromDiscordMessage({ ...ids, content: 'y'.repeat(200), authorName: 'B' }).title).toBe(`B: ${'y'.repeat(79)}…`);
  });

  it('refuses an empty message and ids that are not snowflakes', () => {
    expect(() => documentFromDiscordMessage({ ...ids, content: '  ', authorName: 'A' })).toThrow(/no text/);
    expect(() => documentFromDiscordMessage({ ...ids, channelId: '../x', content: 'hi', authorName: 'A' })).toThrow(KnowledgeInputError);
  });
});
