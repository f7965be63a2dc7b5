/**
 * Reading a `/kb add` attachment: only from Discord's CDN hosts (a local server stands in for one,
 * named explicitly as the tests-only origin), with the type checked before downloading, the size capped
 * by what Discord declares and by what arrives, no redirects, and a deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttachmentLoader, DISCORD_CDN_ORIGINS } from '../../src/discord/files/attachment-document.js';
import { KnowledgeInputError } from '../../src/knowledge/index.js';
import { startLocalServer, type LocalServer } from '../tools/helpers/local-server.js';

const FAQ = '# FAQ\n\nRaid night is every Friday.';

describe('attachments from the CDN', () => {
  let cdn: LocalServer;
  beforeAll(async () => {
    cdn = await startLocalServer({
      '/attachments/1/2/faq.md': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end(FAQ),
      '/attachments/1/3/notes': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/markdown' }).end('Just notes.'),
      '/attachments/1/4/big.txt': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('x'.repeat(5_000)),
      '/attachments/1/5/moved.md': (_req, res) => res.writeHead(302, { Location: 'http://127.0.0.1:9/elsewhere.md' }).end(),
      '/attachments/1/6/slow.md': () => undefined,
      '/attachments/1/7/image.md': (_req, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d])),
    });
  });
  afterAll(() => cdn.close());

  const load = (options: { cdnOrigins?: string[]; timeoutMs?: number; maxFileBytes?: number } = {}) =>
    createAttachmentLoader({ maxFileBytes: options.maxFileBytes ?? 1_000, cdnOrigins: options.cdnOrigins ?? [cdn.origin], timeoutMs: options.timeoutMs });
  const at = (path: string, name: string, size: number, contentType: string | null = null) => ({ url: `${cdn.origin}${path}?ex=1&is=1&hm=abc&`, name, size, contentType });

  it("reads a Markdown file, stored under its name so the same file name replaces it, with Discord's charset", async () => {
    const doc = await load()(at('/attachments/1/2/faq.md', 'faq.md', FAQ.length, 'text/plain; charset=utf-8'));
    expect(doc).toEqual({ source: 'upload/faq.md', link: undefined, title: undefined, format: 'markdown', content: FAQ });
  });

  it('uses the media type when the name has no known ending', async () => {
    expect((await load()(at('/attachments/1/3/notes', 'notes', 11, 'text/markdown'))).format).toBe('markdown');
  });

  it("refuses anything not on Discord's CDN hosts by default, without a request", async () => {
    expect(DISCORD_CDN_ORIGINS).toEqual(['https://cdn.discordapp.com', 'https://media.discordapp.net']);
    const before = cdn.requests.length;
    const loader = createAttachmentLoader({ maxFileBytes: 1_000 });
    await expect(loader(at('/attachments/1/2/faq.md', 'faq.md', 10))).rejects.toThrow(/faq\.md is not on Discord's CDN \(127\.0\.0\.1:\d+\)/);
    await expect(loader({ url: 'https://cdn.discordapp.com.evil.example/a/faq.md', name: 'faq.md', size: 1 })).rejects.toThrow(/not on Discord's CDN/);
    await expect(loader({ url: 'http://cdn.discordapp.com/a/faq.md', name: 'faq.md', size: 1 })).rejects.toThrow(/not on Discord's CDN/);
    expect(cdn.requests.length).toBe(before);
  });

  it('refuses an unknown type and a declared size over the cap before downloading', async () => {
    const before = cdn.requests.length;
    await expect(load()(at('/attachments/1/9/song.mp3', 'song.mp3', 10, 'audio/mpeg'))).rejects.toThrow('song.mp3 is of type audio/mpeg; only Markdown (.md, .markdown), plain text (.txt), HTML (.html, .htm), PDF (.pdf) or Word (.docx) files can be added.');
    await expect(load()(at('/attachments/1/4/big.txt', 'big.txt', 5_000, 'text/plain'))).rejects.toThrow('big.txt is 5 KB; a document may be at most 1 KB (KNOWLEDGE_MAX_FILE_BYTES).');
    // A PDF or Word file has its own, larger cap, checked the same way.
    const pdfLoader = createAttachmentLoader({ maxFileBytes: 1_000, maxUploadBytes: 3_000, cdnOrigins: [cdn.origin] });
    await expect(pdfLoader(at('/attachments/1/5/rules.pdf', 'rules.pdf', 5_000, 'application/pdf'))).rejects.toThrow('rules.pdf is 5 KB; a PDF or Word file may be at most 3 KB (KNOWLEDGE_MAX_UPLOAD_BYTES).');
    expect(cdn.requests.length).toBe(before);
  });

  it('stops reading a body larger than declared at the cap', async () => {
    await expect(load()(at('/attachments/1/4/big.txt', 'big.txt', 100, 'text/plain'))).rejects.toThrow('big.txt is larger than 1 KB, the most a document may be');
  });

  it('refuses binary content whatever the name says', async () => {
    await expect(load()(at('/attachments/1/7/image.md', 'image.md', 8, 'image/png'))).rejects.toThrow(/image\.md looks like a binary file/);
  });

  it('does not follow redirects, says what the CDN answered, and gives up at the deadline', async () => {
    const redirected = load()(at('/attachments/1/5/moved.md', 'moved.md', 10));
    await expect(redirected).rejects.toBeInstanceOf(KnowledgeInputError);
    await expect(redirected).rejects.toThrow(/could not download moved\.md from Discord/);
    await expect(load()(at('/attachments/1/8/gone.md', 'gone.md', 10))).rejects.toThrow("Discord's CDN answered HTTP 404 for gone.md; attach the file again.");
    // slow.md never answers: only the 200 ms deadline ends the download.
    await expect(load({ timeoutMs: 200 })(at('/attachments/1/6/slow.md', 'slow.md', 10))).rejects.toThrow('Downloading slow.md from Discord took longer than 200 ms; try again.');
  });
});
