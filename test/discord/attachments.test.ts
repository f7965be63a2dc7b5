/**
 * Files as input, end to end: attached to /ask (its `file` option) or to a follow-up, fetched from the
 * fake Discord's signed CDN, and sent to the model as an image part, as text, or as a note.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TokenCounter } from '../../src/state/context/token-counter.js';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==', 'base64');

type Part = { type: string; text?: string; image_url?: { url: string } };
/** The last user message of a model request, as sent. */
function lastUser(harness: Harness, request: number): string | Part[] {
  const messages = harness.model.requests[request]!.body.messages;
  return messages.filter((m) => m.role === 'user').at(-1)!.content as unknown as string | Part[];
}

describe('files attached to questions', () => {
  it('an image attached to /ask reaches a vision model as an image part, and stays in the thread\'s memory', async () => {
    h = await startHarness({ env: { MODEL_VISION: 'gpt-4o,gpt-4o-mini' } });
    const { fake, model } = h;
    model.script({ content: 'A single pixel.' }, { content: 'Still one pixel.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'What is in this picture?', file: { filename: 'photo.png', data: PNG, contentType: 'image/png' } } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000);

    const content = lastUser(h, 0) as Part[];
    expect(Array.isArray(content)).toBe(true);
    expect(content[0]).toEqual({ type: 'text', text: expect.stringMatching(/^\[.+\] What is in this picture\?$/) });
    // Scaled for the model (a pixel stays a pixel) and written as a JPEG.
    const image = content.find((p) => p.type === 'image_url')!.image_url!.url;
    expect(image).toMatch(/^data:image\/jpeg;base64,/);
    expect(content).toContainEqual({ type: 'text', text: '[attached image: photo.png]' });
    const notice = fake.messagesIn(answer.channelId).find((m) => m.content.includes('📎'));
    expect(notice?.content).toContain('read `photo.png`');

    // A follow-up still shows the model the image: it is part of the conversation.
    const mark = fake.mark();
    fake.sendMessage({ channelId: answer.channelId, content: 'And now?' });
    await fake.waitForMessage((m) => m.content.includes('Still one pixel.'), 10_000, { since: mark });
    const history = model.requests[1]!.body.messages.map((m) => m.content as unknown);
    expect(JSON.stringify(history)).toContain(image);
  });

  it('a text file on a follow-up is read into the question under its name', async () => {
    h = await startHarness({ messageContent: true });
    const { fake, model } = h;
    model.script({ content: 'First.' }, { content: 'The file says hello.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Ready?' } });
    const first = await fake.waitForMessage(isFinalAnswer, 10_000);
    const mark = fake.mark();
    fake.sendMessage({ channelId: first.channelId, content: 'What does this say?', files: [{ filename: 'notes.md', data: '# Notes\nhello from the file\u200b', contentType: 'text/markdown' }] });
    await fake.waitForMessage((m) => m.content.includes('The file says hello.'), 10_000, { since: mark });
    const content = lastUser(h, 1);
    // Text only: a plain string, which every server takes; invisible characters cleaned like any input.
    expect(typeof content).toBe('string');
    expect(content).toMatch(/What does this say\?\n\n\[attached file: notes\.md\]\n# Notes\nhello from the file\n\[end of notes\.md\]$/);
  });

  it('a file it does not read, and an image for a model without vision, each get a note saying why', async () => {
    h = await startHarness();
    const { fake, model } = h;
    model.script({ content: 'I could not read those.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Look at this', file: { filename: 'report.pdf', data: Buffer.from('%PDF-1.7 …'), contentType: 'application/pdf' } } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000);
    expect(lastUser(h, 0)).toMatch(/\[attached file report\.pdf \(\d+ bytes\) was not read: \.pdf files are not read; I read text files/);
    expect(fake.messagesIn(answer.channelId).find((m) => m.content.includes('📎'))?.content).toContain('not read: `report.pdf` (.pdf files are not read');

    const mark = fake.mark();
    model.script({ content: 'No eyes here.' });
    fake.sendMessage({ channelId: answer.channelId, content: 'And this?', files: [{ filename: 'cat.jpg', data: PNG, contentType: 'image/jpeg' }] });
    await fake.waitForMessage((m) => m.content.includes('No eyes here.'), 10_000, { since: mark });
    const content = lastUser(h, 1);
    expect(typeof content).toBe('string');
    expect(content).toContain('[attached file cat.jpg (70 bytes) was not read: it is an image, and the model (gpt-4o-mini) does not take images]');
  });

  it('a follow-up of files alone, with no text, is still a message to answer', async () => {
    h = await startHarness({ messageContent: true });
    const { fake, model } = h;
    model.script({ content: 'First.' }, { content: 'Got the log.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Ready?' } });
    const first = await fake.waitForMessage(isFinalAnswer, 10_000);
    const mark = fake.mark();
    fake.sendMessage({ channelId: first.channelId, content: '', files: [{ filename: 'server.log', data: 'ERROR disk full', contentType: 'text/plain' }] });
    await fake.waitForMessage((m) => m.content.includes('Got the log.'), 10_000, { since: mark });
    expect(lastUser(h, 1)).toMatch(/\(sent a file without a message\)\n\n\[attached file: server\.log\]\nERROR disk full\n\[end of server\.log\]$/);
  });

  it('a text file over ATTACHMENT_MAX_BYTES is not read, and says so', async () => {
    h = await startHarness({ env: { ATTACHMENT_MAX_BYTES: '1000' } });
    const { fake, model } = h;
    model.script({ content: 'Too big.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Read this log', file: { filename: 'big.log', data: 'x'.repeat(5_000), contentType: 'text/plain' } } });
    await fake.waitForMessage(isFinalAnswer, 10_000);
    expect(lastUser(h, 0)).toContain('[attached file big.log (5 KB) was not read: it is larger than the 1 KB I read]');
  });

  it('ten 99 KB text files in one follow-up share half the history budget; the rest are noted as not read', async () => {
    // HISTORY_TOKEN_BUDGET as .env.example ships it (the harness's own default is smaller).
    h = await startHarness({ messageContent: true, env: { HISTORY_TOKEN_BUDGET: '8000' } });
    const { fake, model } = h;
    model.script({ content: 'First.' }, { content: 'Read what fit.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Ready?' } });
    const first = await fake.waitForMessage(isFinalAnswer, 10_000);
    const mark = fake.mark();
    const log = (n: number) => Array.from({ length: 1_500 }, (_, i) => `12:${String(i % 60).padStart(2, '0')} worker-${n} request ${i * 7919} took ${i % 997} ms`).join('\n').slice(0, 99_000);
    const files = Array.from({ length: 10 }, (_, n) => ({ filename: `part-${n}.log`, data: log(n), contentType: 'text/plain' }));
    fake.sendMessage({ channelId: first.channelId, content: 'What went wrong?', files });
    await fake.waitForMessage((m) => m.content.includes('Read what fit.'), 15_000, { since: mark });

    const counter = new TokenCounter('o200k_base');
    const question = lastUser(h, 1) as string;
    expect(typeof question).toBe('string');
    // 4,000 tokens for the files, plus the question and nine one-line notes.
    expect(counter.text(question)).toBeLessThanOrEqual(4_000 + 10 * 40);
    expect(question).toContain('[attached file: part-0.log]');
    expect(question.match(/was not read: the files of this message already take the 4000 tokens/g)).toHaveLength(9);
    const notice = fake.messagesIn(first.channelId).filter((m) => m.content.includes('📎')).at(-1);
    expect(notice?.content).toContain('`part-0.log` (shortened to fit)');
    expect(notice?.content).toContain('not read: `part-1.log`');
  });
});
