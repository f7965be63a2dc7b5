/**
 * A `tools/call` result as a tool output: text content as text, structured content as JSON, resource
 * links as links (and sources when they are web pages), images kept for people to see (the model is
 * told one is there). `isError` results become errors, so the model gets an error observation.
 */
import { safeHttpUrl } from '../agent/clean-text.js';
import type { Source, ToolImage, ToolOutput } from '../agent/tool.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/**
 * Images shown per call, and the largest, as the thread attaches them (Discord's upload limit is per
 * message): an image past either is shown to nobody, and the model is told so, with why.
 */
export const IMAGES_PER_CALL = 4;
export const IMAGE_MAX_BYTES = 2_000_000;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Why an image is not shown, or undefined when it is. */
function notShown(mimeType: string, bytes: number, shownSoFar: number): string | undefined {
  if (!IMAGE_TYPES.has(mimeType.toLowerCase())) return `${mimeType.slice(0, TEXT_CAPS.mimeType)} is not a kind the thread shows (PNG, JPEG, GIF or WebP)`;
  if (bytes === 0) return 'it is empty';
  if (bytes > IMAGE_MAX_BYTES) return `it is larger than the ${IMAGE_MAX_BYTES / 1_000_000} MB the bot shows`;
  if (shownSoFar >= IMAGES_PER_CALL) return `only ${IMAGES_PER_CALL} images of one call are shown`;
  return undefined;
}

function size(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1_000))} KB`;
}

/** A resource link's title and description come from the server: capped like every untrusted field. */
function capped(value: unknown, max: number): string {
  const text = String(value ?? '');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The parts of MCP's `CallToolResult` the bot reads (typed loosely: servers send what they send). */
export interface CallResult {
  content?: Array<Record<string, unknown>>;
  structuredContent?: unknown;
  isError?: boolean;
}

/** Thrown for a result the server marked `isError`: its text is the observation. */
export class ToolResultError extends Error {}

/** Turn a result into what the engine shows the model and people. */
export function toToolOutput(result: CallResult): ToolOutput {
  const lines: string[] = [];
  const images: ToolImage[] = [];
  const sources: Source[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        lines.push(String(item.text ?? ''));
        break;
      case 'image': {
        const mimeType = typeof item.mimeType === 'string' ? item.mimeType : 'an unnamed type';
        const data = typeof item.data === 'string' ? item.data : '';
        // The size of the decoded bytes, from the base64's length (nothing is decoded to say no).
        const bytes = Math.floor((data.replace(/=+$/, '').length * 3) / 4);
        const why = notShown(mimeType, bytes, images.length);
        if (why) lines.push(`[image (${mimeType.slice(0, TEXT_CAPS.mimeType)}, ${size(bytes)}): not shown to anyone: ${why}]`);
        else {
          images.push({ mimeType, data });
          lines.push(`[image (${mimeType}, ${size(bytes)}): shown to the people in the conversation]`);
        }
        break;
      }
      case 'audio':
        lines.push(`[audio (${String(item.mimeType)}): not shown]`);
        break;
      case 'resource_link': {
        const uri = capped(item.uri, TEXT_CAPS.url);
        const title = capped(item.title ?? item.name ?? uri, TEXT_CAPS.mcpLinkTitle);
        lines.push(`Link: ${title} <${uri}>${item.description ? ` (${capped(item.description, TEXT_CAPS.mcpLinkDescription)})` : ''}`);
        // Only a web page the bot can print as a plain link becomes a source under the answer.
        const url = safeHttpUrl(item.uri);
        if (url) sources.push({ title, url });
        break;
      }
      case 'resource': {
        const resource = (item.resource ?? {}) as Record<string, unknown>;
        if (typeof resource.text === 'string') lines.push(`Resource ${String(resource.uri)}:\n${resource.text}`);
        else lines.push(`[resource ${String(resource.uri)} (${String(resource.mimeType ?? 'binary')}): not shown]`);
        break;
      }
      default:
        lines.push(`[${String(item.type)} content: not shown]`);
    }
  }
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    // Servers usually repeat structured content as text for older clients: once is enough.
    if (!lines.some((l) => sameJson(l, result.structuredContent))) lines.push(json);
  }
  const output = lines.join('\n') || '(no output)';
  if (result.isError) throw new ToolResultError(output);
  return { output, ...(sources.length ? { sources } : {}), ...(images.length ? { images } : {}) };
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
