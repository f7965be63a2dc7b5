/**
 * Where documents come from: files and folders, a URL, a Discord message. Each loader checks the type
 * and the size before reading more than it must, and throws KnowledgeInputError with a message for the
 * person who asked. URLs go through `safeGet`, the fetcher `read_url` uses, so the same address rules
 * (public addresses only, on every redirect) apply to what a moderator adds.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { safeGet, type HostLookup } from '../net/safe-http.js';
import { cleanDocumentText } from '../agent/clean-text.js';
import { documentFromBytes, EXTENSIONS, formatBytes, formatOfMediaType, formatOfName } from './documents.js';
import { isParsedFormat } from './formats.js';
import { KnowledgeInputError } from './errors.js';
import type { DocumentInput } from './types.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** Read one file; its source is its absolute path (so adding it again from anywhere replaces it). */
export async function documentFromFile(file: string, options: { maxFileBytes: number; maxUploadBytes?: number }): Promise<DocumentInput> {
  const absolute = path.resolve(file);
  let stat;
  try {
    stat = await fs.stat(absolute);
  } catch (error) {
    throw new KnowledgeInputError(`${file}: no such file or folder.`, { cause: error });
  }
  if (!stat.isFile()) throw new KnowledgeInputError(`${file} is not a file.`);
  const format = formatOfName(absolute);
  if (!format) {
    throw new KnowledgeInputError(`${file} is of an unknown type; only ${Object.keys(EXTENSIONS).join(', ')} files can be added.`);
  }
  // Checked before reading, so a huge file is never loaded into memory.
  const binary = isParsedFormat(format);
  const max = binary ? options.maxUploadBytes ?? options.maxFileBytes : options.maxFileBytes;
  if (stat.size > max) {
    throw new KnowledgeInputError(`${file} is ${formatBytes(stat.size)}; ${binary ? 'a PDF or Word file' : 'a document'} may be at most ${formatBytes(max)} (${binary ? 'KNOWLEDGE_MAX_UPLOAD_BYTES' : 'KNOWLEDGE_MAX_FILE_BYTES'}).`);
  }
  const bytes = await fs.readFile(absolute);
  return documentFromBytes({ name: path.basename(absolute), bytes, source: absolute, maxFileBytes: options.maxFileBytes, maxUploadBytes: options.maxUploadBytes });
}

/** Most files one folder may list; a bigger tree is almost certainly the wrong folder. */
const MAX_FOLDER_FILES = 10_000;

/**
 * The files of a folder and its subfolders that can be added, sorted; other files are listed as
 * skipped. Hidden entries, node_modules and symbolic links (which could loop) are not followed.
 */
export async function listFolder(folder: string): Promise<{ files: string[]; skipped: string[] }> {
  const files: string[] = [];
  const skipped: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) (formatOfName(entry.name) ? files : skipped).push(full);
      if (files.length + skipped.length > MAX_FOLDER_FILES) {
        throw new KnowledgeInputError(`${folder} holds more than ${MAX_FOLDER_FILES} files; add a smaller folder.`);
      }
    }
  };
  try {
    await walk(path.resolve(folder));
  } catch (error) {
    if (error instanceof KnowledgeInputError) throw error;
    throw new KnowledgeInputError(`Could not read the folder ${folder}: ${(error as Error).message}`, { cause: error });
  }
  return { files, skipped };
}

export interface UrlSourceOptions {
  userAgent: string;
  maxFileBytes: number;
  /** Largest PDF or Word file (KNOWLEDGE_MAX_UPLOAD_BYTES); default `maxFileBytes`. */
  maxUploadBytes?: number;
  /** Tests only: let a test add a page from a server it started on 127.0.0.1. Never from configuration. */
  allowLoopbackForTests?: boolean;
  /** Tests only: resolve host names without DNS. */
  lookup?: HostLookup;
  signal?: AbortSignal;
  /** Deadline for the whole exchange, redirects included (default 15 s). */
  timeoutMs?: number;
}

/** Fetch a page. Its source is the URL as given (without #fragment); its link is where it ended up. */
export async function documentFromUrl(url: string, options: UrlSourceOptions): Promise<DocumentInput> {
  const requested = url.trim();
  const pathname = (() => {
    try {
      return new URL(requested).pathname;
    } catch {
      return '';
    }
  })();
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 15_000);
  // The type is known only once the server answers, so the larger cap bounds the download and
  // documentFromBytes applies the one of the type.
  const maxBytes = Math.max(options.maxFileBytes, options.maxUploadBytes ?? 0);
  let response;
  try {
    response = await safeGet(requested, {
      userAgent: options.userAgent,
      allowLoopback: options.allowLoopbackForTests === true,
      lookup: options.lookup,
      // One byte more than allowed, so "exactly at the cap" and "over it" can be told apart.
      maxBytes: maxBytes + 1,
      maxRedirects: 5,
      accept: (mediaType) => formatOfMediaType(mediaType, pathname) !== undefined,
      signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline,
    });
  } catch (error) {
    if (error instanceof ToolError) throw new KnowledgeInputError(error.message, { cause: error });
    throw error;
  }
  if (response.truncated || response.body.length > maxBytes) {
    throw new KnowledgeInputError(`${requested} is larger than ${formatBytes(maxBytes)}, the most a document may be (${maxBytes > options.maxFileBytes ? 'KNOWLEDGE_MAX_UPLOAD_BYTES' : 'KNOWLEDGE_MAX_FILE_BYTES'}).`);
  }
  const source = requested.replace(/#.*$/, '');
  return documentFromBytes({
    name: pathname.split('/').pop() || requested, bytes: response.body, mediaType: response.mediaType, charset: response.charset,
    source, link: response.url, maxFileBytes: options.maxFileBytes, maxUploadBytes: options.maxUploadBytes,
  });
}

/** What a Discord message contributes; the caller (the context-menu command) reads these off the message. */
export interface DiscordMessageSource {
  guildId: string;
  channelId: string;
  messageId: string;
  content: string;
  authorName: string;
}

const SNOWFLAKE = /^\d{17,20}$/;

/** A message as a Markdown document whose source and link are the message's link. */
export function documentFromDiscordMessage(message: DiscordMessageSource): DocumentInput {
  const { guildId, channelId, messageId } = message;
  if (![guildId, channelId, messageId].every((id) => SNOWFLAKE.test(id))) {
    throw new KnowledgeInputError('A Discord message is named by its server, channel and message ids (17-20 digits each).');
  }
  const content = message.content ?? '';
  if (!content.trim()) throw new KnowledgeInputError('That message has no text to add (files attached to it can be added with /kb add).');
  const link = `https://discord.com/channels/${guildId}/${channelId}/${messageId}`;
  const firstLine = cleanDocumentText(content).split('\n').find((line) => line.trim())!.replace(/[#>*_`~|]+/g, '').replace(/\s+/g, ' ').trim();
  const excerpt = firstLine.length > TEXT_CAPS.messageTitle ? `${firstLine.slice(0, TEXT_CAPS.messageTitle - 1).trimEnd()}…` : firstLine;
  const author = cleanDocumentText(message.authorName ?? '').replace(/\s+/g, ' ').trim().slice(0, TEXT_CAPS.displayName) || 'someone';
  // Bound to its channel: only members who can view it there find what was said in it.
  return { source: link, link, title: `${author}: ${excerpt || 'a message'}`, format: 'markdown', content, channelId };
}
