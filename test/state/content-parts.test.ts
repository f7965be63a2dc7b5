import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { IMAGE_NOTE, IMAGE_TOKENS } from '../../src/agent/content.js';
import { toTextTranscript } from '../../src/agent/text-protocol.js';
import type { ChatMessage } from '../../src/agent/types.js';
import { RECORD_VERSION } from '../../src/state/records.js';
import { TokenCounter } from '../../src/state/context/token-counter.js';
import { trimHistory } from '../../src/state/context/trim-history.js';
import { toModelMessages } from '../../src/state/types.js';
import { fakeClock, openStores, recordingLogger } from './helpers/stores.js';

const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==';
const withImage: ChatMessage = {
  role: 'user',
  content: [{ type: 'text', text: 'What is in this picture?' }, { type: 'image_url', image_url: { url: PIXEL } }],
};

describe('user messages with content parts', () => {
  it('are stored and read back as parts, next to records written before parts existed', async () => {
    const log = recordingLogger();
    const stores = await openStores('memory:', { namespace: 'parts', clock: fakeClock(), logger: log.logger });
    // A batch exactly as version 1 wrote it: string content only.
    const v1 = { v: 1, at: 5, messages: [{ role: 'user', content: 'an old question', author: { id: '1', name: 'Ann' }, at: 5 }, { role: 'assistant', content: 'an old answer', at: 5 }] };
    await stores.backend.append('parts:conv:900', JSON.stringify(v1));
    await stores.conversations.append('900', [{ ...withImage, author: { id: '2', name: 'Bo' } }]);

    const loaded = await stores.conversations.load('900');
    expect(loaded.version).toBe(RECORD_VERSION);
    expect(loaded.messages.map((m) => m.content)).toEqual(['an old question', 'an old answer', withImage.content]);
    expect(log.events.filter((e) => e.code === 'migrated-record')).toHaveLength(1);
    expect(log.events.filter((e) => e.code === 'corrupt-record')).toEqual([]);
    // The new batch is written in the new version, so an older process skips it instead of calling it corrupt.
    const raw = (await stores.backend.read('parts:conv:900')).map((e) => JSON.parse(e.raw).v);
    expect(raw).toEqual([1, RECORD_VERSION]);
    await stores.backend.close();
  });

  it('refuses to store a part of an unknown type, writing nothing', async () => {
    const stores = await openStores('memory:', { namespace: 'parts2' });
    const bad = { role: 'user', content: [{ type: 'audio', data: 'x' }] } as unknown as ChatMessage;
    await expect(stores.conversations.append('901', [bad])).rejects.toThrow(/malformed user message/);
    expect(await stores.backend.read('parts2:conv:901')).toEqual([]);
    await stores.backend.close();
  });

  it('put the speaker tag in front of the first text part', () => {
    const [m] = toModelMessages([{ ...withImage, author: { id: '2', name: 'Bo' }, at: 1 }]);
    expect(m!.content).toEqual([{ type: 'text', text: '[Bo] What is in this picture?' }, withImage.content[1]]);
  });

  it('count an image at what its size costs (read from its header), and its text as text', async () => {
    const counter = new TokenCounter('o200k_base');
    const textOnly = counter.message({ role: 'user', content: 'What is in this picture?' });
    // One pixel: a single 512-pixel tile.
    expect(counter.message(withImage)).toBe(textOnly + 85 + 170);
    const photo = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#08f' } }).jpeg().toBuffer();
    const big: ChatMessage = { ...withImage, content: [withImage.content[0] as never, { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${photo.toString('base64')}` } }] };
    // 3000×2000 is scaled to 1152×768 by the model: 3 × 2 tiles.
    expect(counter.message(big)).toBe(textOnly + 85 + 170 * 6);
    const unreadable: ChatMessage = { ...withImage, content: [withImage.content[0] as never, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] };
    expect(counter.message(unreadable)).toBe(textOnly + IMAGE_TOKENS);
  });

  it('are counted by the trimmer: two images do not fit where one does', () => {
    const counter = new TokenCounter('o200k_base');
    const turn = (n: number): ChatMessage[] => [withImage, { role: 'assistant', content: `answer ${n}` }];
    const history = [...turn(1), ...turn(2)];
    const one = trimHistory(turn(2), { budget: 400, counter });
    expect(one.droppedTurns).toBe(0);
    const both = trimHistory(history, { budget: 400, counter });
    expect(both.droppedTurns).toBe(1);
    expect(both.messages).toEqual(turn(2));
  });

  it('become plain text in the text protocol, each image a note', () => {
    const [m] = toTextTranscript([withImage]);
    expect(m).toEqual({ role: 'user', content: `What is in this picture?\n\n${IMAGE_NOTE}` });
  });
});
