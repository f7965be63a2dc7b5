/**
 * `npm run kb -- add`: files, folders and URLs into a collection, each refused input reported and the
 * rest still added. A long file shows its progress on stderr (pages read, passages embedded, time
 * left) at most once a second, on one rewritten line in a terminal and as lines otherwise; a quick
 * one shows none. Meaning search's outcome is said per document when it is not simply done.
 */
import fs from 'node:fs/promises';
import { StorageError } from '../errors.js';
import {
  documentFromFile, documentFromUrl, formatBytes, KnowledgeInputError, listFolder, progressText,
  type AddProgress, type AddResult, type DocumentInput, type KnowledgeBase,
} from '../knowledge/index.js';

/** How often a long file's progress is shown. */
const PROGRESS_EVERY_MS = 1_000;

/** Add every target; 1 when any failed. */
export async function addTargets(kb: KnowledgeBase, collection: string, targets: string[], userAgent: string): Promise<number> {
  let failed = 0;
  const limits = { maxFileBytes: kb.limits.maxFileBytes, maxUploadBytes: kb.limits.maxUploadBytes };
  const addOne = async (label: string, load: () => Promise<DocumentInput>) => {
    const progress = progressLine(label);
    try {
      const result = await kb.add(collection, await load(), { onProgress: progress.update });
      progress.end();
      const { status, document } = result;
      console.log(`${status.padEnd(9)} #${document.id}  ${document.title}  (${plural(document.passages, 'passage')}, ${formatBytes(document.bytes)})  ${document.source}${meaning(result)}${result.note ? `\n          (${result.note})` : ''}`);
    } catch (error) {
      progress.end();
      if (!(error instanceof KnowledgeInputError || error instanceof StorageError)) throw error;
      failed += 1;
      console.error(`failed    ${label}: ${error.message}`);
    }
  };
  for (const target of targets) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
      await addOne(target, () => documentFromUrl(target, { userAgent, ...limits }));
      continue;
    }
    const stat = await fs.stat(target).catch(() => undefined);
    if (stat?.isDirectory()) {
      const { files, skipped } = await listFolder(target);
      for (const file of skipped) console.log(`skipped   ${file} (not .md, .markdown, .txt, .html, .htm, .pdf or .docx)`);
      if (files.length === 0) console.log(`nothing to add in ${target}`);
      for (const file of files) await addOne(file, () => documentFromFile(file, limits));
    } else {
      await addOne(target, () => documentFromFile(target, limits));
    }
  }
  console.log(`collection "${collection}": ${formatBytes(await kb.bytes(collection))} of ${formatBytes(kb.limits.maxBytes)}`);
  return failed ? 1 : 0;
}

/** What meaning search made of it, when that is worth a word. */
function meaning({ embedding }: AddResult): string {
  if (!embedding || embedding.state === 'done') return '';
  if (embedding.state === 'pending') return `\n          (words only for now: ${embedding.reason}; embedded later by the bot or \`npm run kb -- embed\`)`;
  return `\n          (words only: ${embedding.reason})`;
}

/** A progress line on stderr for one document. */
function progressLine(label: string): { update: (p: AddProgress) => void; end: () => void } {
  const text = progressText();
  const tty = process.stderr.isTTY === true;
  // The first report shows at once (the file is being read), the next at most once a second.
  let last = -Infinity;
  let shown = false;
  return {
    update(p) {
      const line = text.line(p);
      if (Date.now() - last < PROGRESS_EVERY_MS) return;
      last = Date.now();
      shown = true;
      const message = `          ${label.split(/[\\/]/).pop()}: ${line}`;
      if (tty) process.stderr.write(`\r\x1b[K${message}`);
      else process.stderr.write(`${message}\n`);
    },
    end() {
      if (shown && tty) process.stderr.write('\r\x1b[K');
    },
  };
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}
