/**
 * A file a moderator attached to `/kb add`, read from Discord's CDN as a knowledge base document. Only
 * Discord's own CDN hosts are fetched (an attachment's URL comes from the interaction payload, but a
 * forged or relayed payload must not make the bot fetch anything else), with no redirects, a size cap
 * checked before and while downloading, and one deadline. The type is checked before the download.
 */
import { readCapped } from '../../net/read-capped.js';
import { ACCEPTED, cleanDocumentText, documentFromBytes, formatBytes, formatOfMediaType, formatOfName, KnowledgeInputError, type DocumentInput } from '../../knowledge/index.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** Where Discord serves attachments. */
export const DISCORD_CDN_ORIGINS: readonly string[] = ['https://cdn.discordapp.com', 'https://media.discordapp.net'];

/** What an attachment option carries (discord.js `Attachment`). */
export interface AttachmentRef {
  url: string;
  name: string;
  contentType?: string | null;
  /** The size Discord reports, in bytes. */
  size: number;
}

export interface AttachmentLoaderOptions {
  /** KNOWLEDGE_MAX_FILE_BYTES. */
  maxFileBytes: number;
  /** KNOWLEDGE_MAX_UPLOAD_BYTES: the cap of PDF and Word files (default maxFileBytes). */
  maxUploadBytes?: number;
  /**
   * Tests only: the fake Discord's CDN (`http://127.0.0.1:PORT`) instead of Discord's. Deliberately not
   * configuration, so a server owner cannot point the bot's downloads elsewhere.
   */
  cdnOrigins?: readonly string[];
  /** Deadline for the download (default 15 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Reads an attachment into a document; throws KnowledgeInputError with a message for the moderator. */
export type AttachmentLoader = (attachment: AttachmentRef, signal?: AbortSignal) => Promise<DocumentInput>;

/** The source an uploaded file is stored under: its name, so uploading a file of that name again replaces it. */
export function uploadSource(name: string): string {
  return `upload/${name}`;
}

export function createAttachmentLoader(options: AttachmentLoaderOptions): AttachmentLoader {
  const origins = new Set((options.cdnOrigins ?? DISCORD_CDN_ORIGINS).map((o) => new URL(o).origin));
  const timeoutMs = options.timeoutMs ?? 15_000;
  const doFetch = options.fetch ?? fetch;
  const { maxFileBytes } = options;
  const maxUploadBytes = options.maxUploadBytes ?? maxFileBytes;

  return async (attachment, signal) => {
    const name = cleanDocumentText(attachment.name ?? '').replace(/[\\/]/g, '_').trim().slice(0, TEXT_CAPS.documentName) || 'file';
    let url: URL;
    try {
      url = new URL(attachment.url);
    } catch {
      throw new KnowledgeInputError(`${name} has no usable download address; attach it again.`);
    }
    if (!origins.has(url.origin)) {
      throw new KnowledgeInputError(`${name} is not on Discord's CDN (${url.host}); only files attached to the command are read.`);
    }
    const { mediaType, charset } = parseContentType(attachment.contentType);
    // The name decides when it is known (Discord often labels Markdown text/plain or octet-stream).
    const byName = formatOfName(name) !== undefined;
    const format = formatOfName(name) ?? (mediaType ? formatOfMediaType(mediaType, name) : undefined);
    if (!format) {
      throw new KnowledgeInputError(`${name} is ${mediaType ? `of type ${mediaType}` : 'of an unknown type'}; only ${ACCEPTED} files can be added.`);
    }
    const binary = format === 'pdf' || format === 'docx';
    const cap = binary ? maxUploadBytes : maxFileBytes;
    if (attachment.size > cap) {
      throw new KnowledgeInputError(`${name} is ${formatBytes(attachment.size)}; ${binary ? 'a PDF or Word file' : 'a document'} may be at most ${formatBytes(cap)} (${binary ? 'KNOWLEDGE_MAX_UPLOAD_BYTES' : 'KNOWLEDGE_MAX_FILE_BYTES'}).`);
    }
    const deadline = AbortSignal.timeout(timeoutMs);
    let body: Buffer;
    try {
      const response = await doFetch(url, { redirect: 'error', signal: signal ? AbortSignal.any([signal, deadline]) : deadline });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new KnowledgeInputError(`Discord's CDN answered HTTP ${response.status} for ${name}; attach the file again.`);
      }
      // One byte past the cap tells "exactly at the cap" from "over it" without reading the rest.
      const read = await readCapped(response.body as AsyncIterable<Uint8Array> | null, cap + 1);
      if (read.truncated || read.body.length > cap) {
        throw new KnowledgeInputError(`${name} is larger than ${formatBytes(cap)}, the most a document may be (${binary ? 'KNOWLEDGE_MAX_UPLOAD_BYTES' : 'KNOWLEDGE_MAX_FILE_BYTES'}).`);
      }
      body = read.body;
    } catch (error) {
      if (error instanceof KnowledgeInputError) throw error;
      if (deadline.aborted) throw new KnowledgeInputError(`Downloading ${name} from Discord took longer than ${timeoutMs >= 1_000 ? `${Math.round(timeoutMs / 1_000)} s` : `${timeoutMs} ms`}; try again.`, { cause: error });
      throw new KnowledgeInputError(`I could not download ${name} from Discord (${(error as Error).message}); try again.`, { cause: error });
    }
    return documentFromBytes({
      name, bytes: body, mediaType: byName ? undefined : mediaType, charset, source: uploadSource(name), maxFileBytes, maxUploadBytes,
    });
  };
}

function parseContentType(value: string | null | undefined): { mediaType?: string; charset?: string } {
  if (!value) return {};
  const [type, ...params] = value.split(';');
  const charset = params.map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p)?.[1]).find(Boolean);
  return { mediaType: type!.trim().toLowerCase() || undefined, charset };
}
