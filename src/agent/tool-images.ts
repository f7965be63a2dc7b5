/**
 * Images for models that take images: members' attachments and what tools return. Before an image
 * goes to a model it is scaled down to what the model can use (the size OpenAI scales a high-detail
 * image to: within 2048×2048, the shorter side at most 768) and written as a JPEG, so a 6 MB
 * screenshot becomes a few hundred kilobytes that every later request in the thread can carry, and its
 * token cost (image-size.ts) is what the history's budget counts. The image library is sharp (libvips,
 * prebuilt for each platform as npm packages); decoding is capped at 40 megapixels, so an image that
 * is small in bytes but huge in pixels (a decompression bomb) is refused, not decoded.
 *
 * Tool results hold text only, so a step's images follow its results as a user message of image
 * parts, each labelled with the call that returned it.
 */
import sharp from 'sharp';
import { imageTokensFor } from './image-size.js';
import type { ObservationOut } from './protocol.js';
import type { ChatMessage, ContentPart } from './types.js';

/** Largest image decoded, in pixels. */
const MAX_INPUT_PIXELS = 40_000_000;

/** An image as a model gets it: a data URL of the scaled-down JPEG, its size and what it costs. */
export interface ModelImage {
  url: string;
  width: number;
  height: number;
  bytes: number;
  tokens: number;
}

/**
 * `data` (any image sharp reads: PNG, JPEG, GIF, WebP…) scaled down for a model; an error message for
 * the model when it cannot be read. Never larger than the model can use; never scaled up.
 */
export async function imageForModel(data: Uint8Array): Promise<ModelImage | { error: string }> {
  try {
    const image = sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, animated: false, failOn: 'error' });
    const meta = await image.metadata();
    if (!meta.width || !meta.height) return { error: 'it could not be read as an image' };
    const fit = Math.min(1, 2048 / Math.max(meta.width, meta.height));
    const shorter = Math.min(1, 768 / Math.min(meta.width * fit, meta.height * fit));
    const width = Math.max(1, Math.round(meta.width * fit * shorter));
    const height = Math.max(1, Math.round(meta.height * fit * shorter));
    const { data: out, info } = await image
      .rotate()
      .resize(width, height, { fit: 'fill' })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 82, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    return { url: `data:image/jpeg;base64,${out.toString('base64')}`, width: info.width, height: info.height, bytes: out.length, tokens: imageTokensFor(info.width, info.height) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { error: /pixel limit/i.test(message) ? `it has more than ${MAX_INPUT_PIXELS / 1_000_000} million pixels` : 'it could not be read as an image' };
  }
}

/** The message showing a step's images to the model, scaled down; undefined when no call returned one. */
export async function imagesMessage(results: readonly ObservationOut[]): Promise<ChatMessage | undefined> {
  const parts: ContentPart[] = [];
  for (const r of results) {
    for (const image of r.images ?? []) {
      const fitted = await imageForModel(Buffer.from(image.data, 'base64'));
      if ('error' in fitted) parts.push({ type: 'text', text: `An image returned by ${r.call.tool} cannot be shown to you: ${fitted.error}.` });
      else parts.push({ type: 'text', text: `Image returned by ${r.call.tool}:` }, { type: 'image_url', image_url: { url: fitted.url } });
    }
  }
  return parts.length ? { role: 'user', content: parts } : undefined;
}
