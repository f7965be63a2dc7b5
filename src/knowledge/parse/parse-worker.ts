/**
 * Entry point of the document reader's worker process: reads one PDF, Word file or piece of HTML (an
 * added document, a page read_url fetched) per message and answers with its text. The host kills this
 * process when a read takes too long or its memory overflows, which is what stops input built to exhaust
 * the reader; the caps checked here (pages, text, inflated bytes, the markup's size and nesting) stop
 * the honest big ones early with a clearer reason. Its environment is empty and it has no fetch:
 * nothing in a file can make it reach anything.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { docxHtml } from './docx-html.js';
import { pdfPages } from './pdf-pages.js';
import { readHtml } from './read-html.js';
import { ParseRefusal, type ParseReply, type ParseRequest, type Parsed } from './parse-types.js';

if (!process.send) throw new Error('the parser worker must run as a child process with an IPC channel');
// The host going away (a crash, kill -9) must not leave this process behind.
process.on('disconnect', () => process.exit(0));
delete (globalThis as { fetch?: unknown }).fetch;

const send = (reply: ParseReply) => process.send?.(reply);

// A full collection after each read, before its reply: what the host then reads of this process's
// resident memory is what the read left behind, not garbage, when it decides whether to restart it.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

async function parse(request: ParseRequest): Promise<Parsed> {
  if (request.format === 'html') return readHtml(request.html, { url: request.url, article: request.article });
  const bytes = new Uint8Array(request.bytes);
  if (request.format === 'pdf') {
    return pdfPages(bytes, request.name, request.caps, (done, total) => send({ type: 'progress', id: request.id, done, total }));
  }
  // A Word file's headings become h1-h6; it is no web page, so no article is looked for.
  return readHtml((await docxHtml(bytes, request.name, request.caps)).html, { article: false });
}

process.on('message', (request: ParseRequest) => {
  parse(request).then(
    (parsed) => (collect(), send({ type: 'reply', id: request.id, ok: true, parsed })),
    (error: unknown) => (collect(), send({
      type: 'reply', id: request.id, ok: false, refused: error instanceof ParseRefusal,
      message: error instanceof Error ? error.message : String(error),
    })),
  );
});

send({ type: 'ready' });
