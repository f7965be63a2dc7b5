/**
 * PDF bombs against the document reader with its production caps (issue 43: a 1 MB PDF whose content
 * stream inflates to 1 GB held the reader 18 s, took it to 2.4 GB and was refused for the wrong
 * reason). Per case: how long until the refusal (median of the runs), the reason, the reader's highest
 * resident memory as the host sampled it, and this process's. Baselines in the same run: a real
 * 200-page text PDF read through the same worker, and what the inflate check alone costs on it.
 */
import { makeInflateBomb, makePdf, makePdfBomb } from '../test/knowledge/helpers/make-files.js';
import { productionDefaults } from '../test/discord/harness.js';
import { loadConfig } from '../src/config.js';
import { parserOptionsFrom } from '../src/knowledge/open-configured.js';
import { createDocumentParser, type DocumentParser } from '../src/knowledge/parse/document-parser.js';
import { checkPdfInflate } from '../src/knowledge/parse/pdf-inflate.js';
import { fmt, median, type BenchSection } from './stats.js';

const MB = 1_048_576;
const RUNS = 3;

async function timed(parser: DocumentParser, name: string, bytes: Uint8Array) {
  const times: number[] = [];
  const peaks: number[] = [];
  let outcome = '';
  const starts = parser.stats().starts;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    outcome = await parser.parse('pdf', bytes, { name, maxTextBytes: 1_000_000 }).then((p) => `read (${p.kind === 'pages' ? p.pages.length : 0} pages)`, (e: Error) => e.message);
    times.push(performance.now() - started);
    peaks.push(parser.stats().lastPeakRssBytes ?? NaN);
  }
  // A worker ended after a run is started by the next one; the last run's restart shows in the next file.
  await parser.parse('pdf', await makePdf(['A page read after the case, to count its restarts.']), { name: 'next.pdf', maxTextBytes: 1_000_000 });
  return { times, peak: Math.max(...peaks), outcome, restarts: parser.stats().starts - starts };
}

/** The pdf-bomb bench. */
export async function benchPdfBomb(): Promise<BenchSection> {
  const words = 'the keeper climbs the tower at dusk and lights the lamp for ships crossing the bay '.repeat(30);
  const real = await makePdf(Array.from({ length: 200 }, (_, i) => `Chapter ${i + 1}\n${words.slice(0, 90)}\n${words.slice(90, 180)}\n${words.slice(180, 270)}`), 'Lighthouse manual');
  const cases: Array<[string, Uint8Array]> = [
    ['1 GB in one content stream', await makeInflateBomb(1_000)],
    ['300 MB over 5 pages (60 MB each)', await makePdfBomb(5, 60)],
    ['real text PDF, 200 pages (baseline)', real],
  ];
  // The settings .env.example ships, mapped as the bot maps them.
  const { knowledge } = loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', ...productionDefaults() });
  const parser = createDocumentParser(parserOptionsFrom(knowledge));
  const rows: BenchSection['rows'] = [];
  try {
    // A warm reader, as the bot has after its first file.
    await parser.parse('pdf', await makePdf(['A warm-up page about lighthouses.']), { name: 'warm.pdf', maxTextBytes: 1_000_000 });
    for (const [label, bytes] of cases) {
      const { times, peak, outcome, restarts } = await timed(parser, 'file.pdf', bytes);
      rows.push({
        case: label,
        'file KB': fmt(bytes.length / 1000, 0),
        'to outcome, median ms': fmt(median(times), 0),
        'worst ms': fmt(Math.max(...times), 0),
        'reader peak RSS MB': Number.isNaN(peak) ? 'n/a (no /proc)' : fmt(peak / MB, 0),
        'bot process RSS MB': fmt(process.memoryUsage().rss / MB, 0),
        'reader restarts': `${restarts} of ${RUNS}`,
        outcome: outcome.replace(/\|/g, '/').slice(0, 110),
      });
    }
  } finally {
    await parser.close();
  }
  const check: number[] = [];
  let streams = 0;
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    streams = checkPdfInflate(real, 'real.pdf', { maxInflatedBytes: knowledge.maxPdfInflatedBytes, maxPageBytes: knowledge.maxPdfPageBytes }).streams;
    check.push(performance.now() - started);
  }
  const mb = (bytes: number) => fmt(bytes / 1_000_000, 0);
  return {
    name: 'Document reader: PDF bombs (issue 43)',
    rows,
    notes: [
      `Production caps (.env.example): ${mb(knowledge.maxPdfPageBytes)} MB for one page's content or one stream (KNOWLEDGE_PDF_MAX_PAGE_BYTES), ${mb(knowledge.maxPdfInflatedBytes)} MB for the file (KNOWLEDGE_PDF_MAX_INFLATED_BYTES), ${knowledge.parseMemoryMb} MB for the reader process (KNOWLEDGE_PARSE_MEMORY_MB). ${RUNS} runs per case; a run that left the reader grown ends it, and the next run's time includes starting a fresh one.`,
      `The inflate check alone on the 200-page text PDF (${fmt(real.length / 1000, 0)} KB, ${streams} streams): ${fmt(median(check), 1)} ms median of 10 (fastest ${fmt(Math.min(...check), 1)} ms), in-process. Before issue 43 the 1 GB bomb took 48 s on this machine and peaked at 2.9 GB (refused as "no text layer").`,
    ],
  };
}
