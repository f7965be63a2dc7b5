/**
 * Small helpers the end-to-end tests share: waiting for a condition that no fake event announces (the
 * bot going idle, a request reaching the model), a message's buttons, and text cut into stream chunks.
 */
import type { FakeMessage } from '../fake-discord/index.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll until `condition` holds, or fail naming `what` (rather than the suite's timeout). */
export async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The buttons of a message's first row. */
export const buttonsOf = (m: Pick<FakeMessage, 'components'>) => (m.components[0] as { components?: Array<{ custom_id: string; label: string }> } | undefined)?.components ?? [];

/** `text` in chunks of `size` characters, as a model streams it. */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
