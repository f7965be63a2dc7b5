/**
 * Images tools return, for models that take images. Tool results hold text only, so the images follow
 * the step's results as a user message of image parts, each labelled with the call that returned it.
 */
import type { ObservationOut } from './protocol.js';
import type { ChatMessage, ContentPart } from './types.js';

/** The message showing a step's images to the model; undefined when no call returned one. */
export function imagesMessage(results: readonly ObservationOut[]): ChatMessage | undefined {
  const parts: ContentPart[] = [];
  for (const r of results) {
    for (const image of r.images ?? []) {
      parts.push({ type: 'text', text: `Image returned by ${r.call.tool}:` }, { type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } });
    }
  }
  return parts.length ? { role: 'user', content: parts } : undefined;
}
