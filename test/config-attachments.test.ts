import { describe, expect, it } from 'vitest';
import { loadConfig, takesImages } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

const load = (env: Record<string, string>) => loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', ...env });

describe('configuration of files as input', () => {
  it('takes images from no model by default, from every model with true, or from the models listed', () => {
    expect(load({}).attachments).toEqual({ vision: false, maxTextBytes: 100_000, maxImageBytes: 5_000_000 });
    expect(takesImages(load({ MODEL_VISION: 'true' }).attachments.vision, 'llama3')).toBe(true);
    const listed = load({ MODEL_VISION: 'gpt-4o, GPT-4o-mini' }).attachments.vision;
    expect(listed).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(takesImages(listed, 'gpt-4o-mini')).toBe(true);
    expect(takesImages(listed, 'GPT-4O')).toBe(true);
    expect(takesImages(listed, 'gpt-3.5-turbo')).toBe(false);
    expect(takesImages(load({ MODEL_VISION: 'off' }).attachments.vision, 'gpt-4o')).toBe(false);
  });

  it('reads the size caps and names a bad one', () => {
    expect(load({ ATTACHMENT_MAX_BYTES: '250000', ATTACHMENT_IMAGE_MAX_BYTES: '1000000' }).attachments).toMatchObject({ maxTextBytes: 250_000, maxImageBytes: 1_000_000 });
    try {
      load({ ATTACHMENT_MAX_BYTES: '10 KB' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual(['ATTACHMENT_MAX_BYTES must be a whole number from 1000 to 10000000 (got "10 KB").']);
    }
  });
});
