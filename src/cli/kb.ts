/**
 * Terminal knowledge base: `npm run kb -- add|list|remove|search ... [--guild ID]`. The same index,
 * caps and address rules as the bot, so documents can be loaded and searches tried without Discord.
 * Exit codes: 0 done, 1 something failed (each failure said), 2 bad flags or configuration.
 */
import path from 'node:path';
import { loadConfigOrReport } from '../config.js';
import { readCommandLine } from './command-line.js';
import { describeError, StorageError } from '../errors.js';
import {
  checkCollection, duration, formatBytes, KNOWLEDGE_OFF, KnowledgeInputError, openConfiguredKnowledge, passagePlace, type KnowledgeBase,
} from '../knowledge/index.js';
import { addTargets, plural } from './kb-add.js';

const USAGE = `usage: npm run kb -- add <file|folder|url>... [--guild ID]
       npm run kb -- list [--guild ID]
       npm run kb -- embed          (meaning search: embed the passages that have no vector of EMBEDDING_MODEL)
       npm run kb -- remove <id|source> [--guild ID]
       npm run kb -- search "query" [--limit N] [--guild ID]
--guild names the collection (a Discord server's id); without it the terminal's "default" collection is used.`;

const COMMANDS = ['add', 'list', 'remove', 'search', 'embed'] as const;
type Command = (typeof COMMANDS)[number];

async function main(): Promise<number> {
  const line = readCommandLine(
    {
      allowPositionals: true,
      options: {
        guild: { type: 'string' },
        limit: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    },
    USAGE,
  );
  if ('exit' in line) return line.exit;
  const { values, positionals } = line;
  const [command, ...args] = positionals;
  const problems: string[] = [];
  if (!COMMANDS.includes(command as Command)) problems.push(command ? `unknown command "${command}"` : 'a command is required');
  if ((command === 'add' || command === 'remove' || command === 'search') && args.length === 0) problems.push(`${command} needs ${command === 'add' ? 'at least one file, folder or URL' : command === 'remove' ? 'a document id or source' : 'a query'}`);
  if (((command === 'list' || command === 'embed') && args.length) || (command === 'remove' && args.length > 1)) problems.push(`unexpected arguments: ${args.slice(command === 'remove' ? 1 : 0).join(' ')}`);
  const collection = values.guild ?? 'default';
  try {
    checkCollection(collection);
  } catch (error) {
    problems.push(`--guild: ${describeError(error)}`);
  }
  const limit = values.limit === undefined ? 5 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 50) problems.push('--limit must be a whole number from 1 to 50');
  if (values.limit !== undefined && command !== 'search') problems.push('--limit only applies to search');
  if (problems.length) {
    console.error(`${problems.join('; ')}\n${USAGE}`);
    return 2;
  }

  const config = loadConfigOrReport({ needDiscord: false, needModel: false });
  if (!config) return 2;
  if (!config.knowledge.url) {
    console.error(KNOWLEDGE_OFF);
    return 2;
  }
  if (command === 'embed' && !config.knowledge.embedding) {
    console.error('Meaning search is off: set EMBEDDING_MODEL (and EMBEDDING_BASE_URL or OPENAI_BASE_URL for a local server) to embed passages.');
    return 2;
  }
  let kb: KnowledgeBase;
  try {
    // Opened as the bot opens it (the same caps, PDF and Word reader, and meaning search).
    kb = await openConfiguredKnowledge(config.knowledge, { baseDir: process.cwd() });
  } catch (error) {
    console.error(describeError(error));
    return 1;
  }
  try {
    switch (command as Command) {
      case 'add':
        return await addTargets(kb, collection, args, config.tools.userAgent);
      case 'embed':
        return await embed(kb);
      case 'list':
        return await list(kb, collection);
      case 'remove':
        return await remove(kb, collection, args[0]!);
      case 'search':
        return await search(kb, collection, args.join(' '), limit);
    }
  } catch (error) {
    if (!(error instanceof KnowledgeInputError || error instanceof StorageError)) throw error;
    console.error(error.message);
    return 1;
  } finally {
    await kb.close();
  }
}

async function list(kb: KnowledgeBase, collection: string): Promise<number> {
  const documents = await kb.list(collection);
  if (documents.length === 0) {
    console.log(`No documents in collection "${collection}". Add some with: npm run kb -- add <file|folder|url>`);
    return 0;
  }
  for (const d of documents) {
    console.log(`#${d.id}  ${d.title}  (${plural(d.passages, 'passage')}, ${formatBytes(d.bytes)}, ${d.updatedAt.toISOString().slice(0, 16).replace('T', ' ')})  ${d.source}`);
  }
  console.log(`${plural(documents.length, 'document')}, ${formatBytes(await kb.bytes(collection))} of ${formatBytes(kb.limits.maxBytes)}`);
  if (kb.meaning) console.log(await meaningLine(kb));
  return 0;
}

/** Meaning search's progress over the whole index (every collection): what is embedded with the model now set. */
async function meaningLine(kb: KnowledgeBase): Promise<string> {
  const s = await kb.meaning!.status();
  const percent = s.passages ? Math.floor((s.embedded / s.passages) * 100) : 100;
  const rest = s.passages - s.embedded - s.skipped;
  const waiting = rest > 0 ? `; ${plural(rest, 'passage')} found by words until embedded (the bot does it in the background, or: npm run kb -- embed)` : '';
  const skipped = s.skipped > 0 ? `; ${plural(s.skipped, 'passage')} skipped for a spent budget (embedded when added again)` : '';
  return `meaning search (${s.model}, vectors in ${s.storage}): ${s.embedded.toLocaleString('en-US')} of ${plural(s.passages, 'passage')} embedded (${percent}%)${waiting}${skipped}`;
}

/** `embed`: every pending passage, in the foreground, with progress and the time left. */
async function embed(kb: KnowledgeBase): Promise<number> {
  const { passages, embedded, skipped } = await kb.meaning!.status();
  const todo = passages - embedded - skipped;
  console.log(`${plural(todo, 'passage')} to embed with ${kb.meaning!.model}`);
  const started = Date.now();
  const result = await kb.meaning!.embedPending({
    onBatch: (done) => {
      const left = done > 0 && todo > done ? `, about ${duration(((Date.now() - started) / done) * (todo - done))} left` : '';
      console.log(`embedded  ${done.toLocaleString('en-US')} of ${todo.toLocaleString('en-US')}${left}`);
    },
  }).catch((error: unknown) => {
    console.error(`The embedding server failed: ${describeError(error)}. What was embedded is kept; run it again to go on.`);
    return undefined;
  });
  if (!result) return 1;
  console.log(`done: ${plural(result.embedded, 'passage')} in ${plural(result.calls, 'request')}, ${plural(result.tokens, 'token')}`);
  console.log(await meaningLine(kb));
  return 0;
}

async function remove(kb: KnowledgeBase, collection: string, target: string): Promise<number> {
  // A file is stored under its absolute path, so `remove docs/faq.md` works from where it was added.
  const removed = (await kb.remove(collection, target)) ?? (/^\d+$/.test(target) ? undefined : await kb.remove(collection, path.resolve(target)));
  if (!removed) {
    console.error(`No document "${target}" in collection "${collection}". See: npm run kb -- list`);
    return 1;
  }
  console.log(`removed   #${removed.id}  ${removed.title}  ${removed.source}`);
  return 0;
}

async function search(kb: KnowledgeBase, collection: string, query: string, limit: number): Promise<number> {
  const hits = await kb.search(collection, query, { limit });
  if (hits.length === 0) {
    console.log(`No passage matches "${query}" in collection "${collection}".`);
    return 0;
  }
  hits.forEach((hit, i) => {
    // Named as the bot's tool names it, with the page of a PDF passage (`Rulebook, p. 2`).
    console.log(`${i + 1}. ${passagePlace(hit)}  (score ${hit.score.toPrecision(3)})`);
    console.log(`   ${hit.link ?? hit.source}`);
    console.log(`   ${hit.snippet}\n`);
  });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Unexpected failure: ${describeError(error)}`);
    process.exit(1);
  },
);
