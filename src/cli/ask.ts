/**
 * Terminal runner: `npm run ask -- [--protocol auto|native|text] [--max-steps N] [--collection NAME] [--charts DIR] [--json] [--step] [--no-mcp] "question"`.
 * Same config, engine and tools as the bot, so a model server and the tools can be tried without Discord.
 * The MCP servers of MCP_SERVERS_FILE are connected and their tools offered (the terminal is the
 * operator's own: no moderator rules apply there); `--no-mcp` leaves them out.
 * `search_knowledge` searches the collection named (what `npm run kb` fills; `default` unless told)
 * by words and, with EMBEDDING_MODEL, meaning, and is offered only when that collection has
 * documents, as in a server. Charts `plot` draws are
 * written to files in --charts (default: the current folder), and each is named as it is written.
 */
import { loadConfigOrReport, type Config } from '../config.js';
import { readCommandLine } from './command-line.js';
import { describeError } from '../errors.js';
import { STEP_LIMIT } from '../agent/engine.js';
import type { ProtocolSetting } from '../agent/types.js';
import { createCore } from '../core.js';
import { checkCollection, openConfiguredKnowledge, type KnowledgeBase } from '../knowledge/index.js';
import { askInTerminal, printJson, TerminalPrinter } from './print.js';
import { describedAttachments, saveAttachments } from './save-files.js';

const USAGE = `usage: npm run ask -- [--protocol auto|native|text] [--max-steps N] [--collection NAME] [--charts DIR] [--json] [--step] [--no-mcp] "question"
--collection: the knowledge base collection search_knowledge reads (a server's id; default "default", as npm run kb).
--charts: the folder charts drawn by plot are written to (default: the current folder).
--no-mcp: do not start the MCP servers of MCP_SERVERS_FILE (their tools are offered otherwise).`;

async function main(): Promise<number> {
  const line = readCommandLine(
    {
      allowPositionals: true,
      options: {
        protocol: { type: 'string' },
        'max-steps': { type: 'string' },
        collection: { type: 'string', default: 'default' },
        charts: { type: 'string', default: '.' },
        json: { type: 'boolean', default: false },
        step: { type: 'boolean', default: false },
        'no-mcp': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    },
    USAGE,
  );
  if ('exit' in line) return line.exit;
  const { values, positionals } = line;
  const question = positionals.join(' ').trim();
  const problems: string[] = [];
  if (!question) problems.push('a question is required');
  if (values.protocol && !['auto', 'native', 'text'].includes(values.protocol)) problems.push('--protocol must be auto, native or text');
  const maxSteps = values['max-steps'] === undefined ? undefined : Number(values['max-steps']);
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < STEP_LIMIT.min || maxSteps > STEP_LIMIT.max)) {
    problems.push(`--max-steps must be a whole number from ${STEP_LIMIT.min} to ${STEP_LIMIT.max}`);
  }
  if (values.step && values.json) problems.push('--step and --json cannot be used together');
  try {
    checkCollection(values.collection);
  } catch (error) {
    problems.push(`--collection: ${describeError(error)}`);
  }
  if (problems.length) {
    console.error(`${problems.join('; ')}\n${USAGE}`);
    return 2;
  }

  const config = loadConfigOrReport({ needDiscord: false });
  if (!config) return 2;

  const knowledge = await openKnowledge(config);
  // An MCP server that cannot start is said on stderr; the question is answered without its tools.
  // The protection stdio servers run under is said once, whatever it is.
  const mcpLogger = {
    info: (fields: Record<string, unknown>, message: string) => {
      if (fields.sandbox) console.error(`MCP: ${message}`);
    },
    debug: () => undefined,
    warn: (fields: Record<string, unknown>, message: string) => {
      if (fields.sandbox) return console.error(`MCP: ${message}`);
      const where = [fields.server, ...(Array.isArray(fields.servers) ? fields.servers : [])].filter(Boolean).join(', ');
      console.error(`MCP: ${message} (${where}${fields.err ? `: ${describeError(fields.err)}` : ''})`);
    },
  };
  const { engine, close } = await createCore(config, {}, { knowledge, noMcp: values['no-mcp'], logger: mcpLogger });
  const allowed = new Set(engine.tools.map((t) => t.name));
  if (!knowledge || !(await hasDocuments(knowledge, values.collection))) allowed.delete('search_knowledge');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  try {
    const run = engine.run({
      messages: [{ role: 'user', content: question }],
      protocol: values.protocol as ProtocolSetting | undefined,
      maxSteps,
      collection: values.collection,
      allowedTools: () => allowed,
      signal: controller.signal,
      beforeTool: values.step ? askInTerminal : undefined,
    });
    const printer = new TerminalPrinter();
    for await (const event of run) {
      const written = event.type === 'observation' && event.attachments ? saveAttachments(values.charts, event.attachments) : [];
      if (values.json) printJson(describedAttachments(event, written));
      else printer.print(event, written);
    }
    const result = await run.result;
    if (result.answer !== undefined) return 0;
    if (!values.json) console.error(result.error?.message ?? `The run ended without an answer (${result.reason}).`);
    return result.reason === 'aborted' ? 130 : 1;
  } finally {
    await close();
    await knowledge?.close();
  }
}

/**
 * The knowledge base if it is configured and opens, opened as the bot opens it: with EMBEDDING_MODEL,
 * search_knowledge embeds its query and finds by meaning as in a thread. A question can be answered
 * without it, so a failure is said on stderr and the run goes on without search_knowledge.
 */
async function openKnowledge(config: Config): Promise<KnowledgeBase | undefined> {
  if (!config.knowledge.url) return undefined;
  try {
    return await openConfiguredKnowledge(config.knowledge, { baseDir: process.cwd() });
  } catch (error) {
    console.error(`The knowledge base could not be opened, so search_knowledge is not offered: ${describeError(error)}`);
    return undefined;
  }
}

async function hasDocuments(knowledge: KnowledgeBase, collection: string): Promise<boolean> {
  try {
    return await knowledge.hasDocuments(collection);
  } catch (error) {
    console.error(`The knowledge base could not be read, so search_knowledge is not offered: ${describeError(error)}`);
    return false;
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Unexpected failure: ${describeError(error)}`);
    process.exit(1);
  },
);
