/** Images for models: scaled down to what a model uses, costed from their headers, bombs refused. */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { imageDimensions, imageTokensFor, imageUrlTokens } from '../../src/agent/image-size.js';
import { imageForModel } from '../../src/agent/tool-images.js';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } });

describe('images for a model', () => {
  it('reads width and height from PNG, JPEG, GIF and WebP headers', async () => {
    for (const format of ['png', 'jpeg', 'gif', 'webp'] as const) {
      const bytes = await solid(321, 123).toFormat(format).toBuffer();
      expect(imageDimensions(bytes)).toEqual({ width: 321, height: 123 });
    }
    expect(imageDimensions(Buffer.from('not an image'))).toBeUndefined();
  });

  it('counts tokens as OpenAI does for high detail', () => {
    expect(imageTokensFor(1, 1)).toBe(255);
    expect(imageTokensFor(1024, 1024)).toBe(765);
    expect(imageTokensFor(3000, 2000)).toBe(85 + 170 * 6);
    expect(imageTokensFor(8000, 500)).toBe(85 + 170 * 4);
  });

  it('scales a large image down to within 2048×2048 with its shorter side at 768, never up, as a JPEG', async () => {
    const big = await imageForModel(await solid(4000, 3000).png().toBuffer());
    expect(big).toMatchObject({ width: 1024, height: 768, tokens: 765 });
    expect(imageUrlTokens((big as { url: string }).url)).toBe(765);
    const small = await imageForModel(await solid(40, 30).png().toBuffer());
    expect(small).toMatchObject({ width: 40, height: 30, url: expect.stringMatching(/^data:image\/jpeg;base64,/) });
  });

  it('refuses what it cannot read, and an image of more pixels than it decodes', async () => {
    expect(await imageForModel(Buffer.from('GIF89a nonsense'))).toEqual({ error: 'it could not be read as an image' });
    // 7,000 × 7,000 of one colour: kilobytes that would decode to 196 MB.
    const bomb = await solid(7_000, 7_000).png({ compressionLevel: 9 }).toBuffer();
    expect(bomb.length).toBeLessThan(2_000_000);
    expect(await imageForModel(bomb)).toEqual({ error: 'it has more than 40 million pixels' });
  });
});
