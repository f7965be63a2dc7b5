/**
 * A user message's content is plain text or parts (text and images, OpenAI's shape). These helpers
 * read it either way, so code that only needs words never has to know which it got.
 */
import type { ContentPart, ImagePart } from './types.js';

/**
 * Tokens one image is counted as. OpenAI's rule for a high-detail image is 85 plus 170 per 512-pixel
 * tile after scaling; 765 is a 1024×1024 image (four tiles), what a typical photo or screenshot
 * scales to. The bytes are not decoded to measure it, so every image counts the same; a low-detail
 * image would be 85. Servers other than OpenAI count images their own way; this keeps room for them.
 */
export const IMAGE_TOKENS = 765;

/** What a text-only request says where an image was (the text protocol, models without vision). */
export const IMAGE_NOTE = '[an image was attached here; it cannot be shown in this conversation, which is text only]';

/** The images in a content. */
export function imagesIn(content: string | readonly ContentPart[] | null | undefined): ImagePart[] {
  return typeof content === 'string' || !content ? [] : content.filter((p): p is ImagePart => p.type === 'image_url');
}

/** The text of a content, parts joined by blank lines; images become `imageNote` (left out when empty). */
export function contentText(content: string | readonly ContentPart[] | null | undefined, imageNote = IMAGE_NOTE): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((p) => (p.type === 'text' ? p.text : imageNote))
    .filter((text) => text !== '')
    .join('\n\n');
}

/** `prefix` put before the content's text: at the start of a string, or of its first text part. */
export function prefixContent(content: string | readonly ContentPart[], prefix: string): string | ContentPart[] {
  if (typeof content === 'string') return `${prefix}${content}`;
  const first = content.findIndex((p) => p.type === 'text');
  if (first === -1) return [{ type: 'text', text: prefix.trimEnd() }, ...content];
  return content.map((p, i) => (i === first && p.type === 'text' ? { type: 'text', text: `${prefix}${p.text}` } : p));
}
