/**
 * What reading HTML off the main thread costs and buys: pages read through read_url's page reader (its
 * worker process, 5 s a page) against the same page read on the bot's own thread as before (Readability,
 * then the converter: the old path, one run each, the baseline), with the longest stall of the bot's
 * event loop while the worker reads (what another member's command would wait for).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createDocumentParser } from '../src/knowledge/parse/document-parser.js';
import { readArticle } from '../src/knowledge/parse/html-article.js';
import { htmlToText } from '../src/knowledge/parse/html-text.js';
import { NEWS_PAGE } from '../test/tools/fixtures/news-page.js';
import { fmt, median, type BenchSection } from './stats.js';

const PARAGRAPH = '<p>Some words that make up a paragraph of a real article here, with a few more words, and then some more words so it is long enough to count for the reader.</p>';
const PAGES: Array<[name: string, html: string]> = [
  ['news article (baseline)', NEWS_PAGE],
  ['90,000 nested divs, one paragraph', `<html><body>${'<div>'.repeat(90_000)}${PARAGRAPH}${'</div>'.repeat(90_000)}</body></html>`],
  ['510 levels of 12 paragraphs (within the caps)', `<html><body>${`<div>${PARAGRAPH.repeat(12)}`.repeat(510)}${'</div>'.repeat(510)}</body></html>`],
];

/** The html-reader bench. */
export async function benchHtmlReader(options: { rounds?: number } = {}): Promise<BenchSection> {
  const rounds = options.rounds ?? 3;
  // As the toolbox makes read_url's page reader.
  const reader = createDocumentParser({ timeoutMs: 5_000, timeoutSetting: '', maxMemoryMb: 256, maxQueue: 16 });
  const rows: BenchSection['rows'] = [];
  try {
    await reader.readHtml('<p>warm-up</p>', { name: 'warm-up', maxTextBytes: 1_000_000, article: true });
    for (const [name, html] of PAGES) {
      // The worker first: the old path's garbage (a DOM of the whole page) would stall the loop later.
      const stalls = monitorEventLoopDelay({ resolution: 10 });
      stalls.enable();
      const times: number[] = [];
      let outcome = '';
      for (let i = 0; i < rounds; i += 1) {
        const at = performance.now();
        const page = await reader.readHtml(html, { name, maxTextBytes: 1_000_000, article: true });
        times.push(performance.now() - at);
        outcome = page.article ? 'article' : `plain text: ${page.plainBecause ?? 'no article found'}`;
      }
      stalls.disable();
      const started = performance.now();
      // The old path: Readability, then the converter where it found no article, on this thread.
      if (!readArticle(html)) htmlToText(html);
      const inThread = performance.now() - started;
      rows.push({
        page: `${name}, ${Math.round(html.length / 1_000)} KB`,
        'on the bot\'s thread (old path), ms': fmt(inThread, 0),
        'through the worker, median ms': fmt(median(times), 0),
        'longest event-loop stall meanwhile, ms': fmt(stalls.max / 1e6, 0),
        outcome,
      });
    }
  } finally {
    await reader.close();
  }
  return {
    name: 'HTML pages: read in the page reader\'s worker, against the bot\'s own thread',
    rows,
    notes: [`Worker: median of ${rounds} reads, warm (a page stopped at 5 s restarts it: that read includes the start). Old path: one run.`],
  };
}
