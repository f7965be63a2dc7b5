/**
 * Acknowledge first: with another process holding the SQLite file's write lock, `/ask` is still
 * acknowledged within Discord's 3 seconds, and the member is told why nothing happens yet and then why it
 * was refused. Production defaults, on a real SQLite file (the shipped KEYV_URL kind).
 */
import { promisify } from 'node:util';
import sqlite3 from 'sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteFile } from '../../src/storage/sqlite/declaration.js';
import { privateRefusal } from '../policy/discord-helpers.js';
import { tempSqliteUrl } from '../state/helpers/targets.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('slow storage', () => {
  it('/ask is acknowledged within 3 s while another process holds the write lock for 6 s, and the member is told why', async () => {
    const { url } = tempSqliteUrl('ack-first');
    h = await startHarness({ production: true, keyvUrl: url });
    const { fake, model } = h;
    model.script({ content: 'Answered once storage answered.' });
    const other = new sqlite3.Database(sqliteFile(url, process.cwd()));
    const exec = promisify(other.exec.bind(other));
    await exec("BEGIN IMMEDIATE; INSERT INTO keyv VALUES ('held-by-another-process', 'x');");
    const released = new Promise<void>((resolve) => setTimeout(() => void exec('ROLLBACK').then(resolve), 6_000));
    try {
      const asked = fake.sendSlashCommand({ name: 'ask', options: { question: 'Is anyone there?' } });
      await fake.waitForCallback(asked.id, 3_000);
      expect(asked.ackLatencyMs!).toBeLessThan(3_000);
      // Meanwhile the reply says why nothing has happened yet...
      const original = fake.message(asked.originalMessageId!)!;
      await fake.waitFor(() => original.content.includes('taking longer than usual'), 5_000);
      // ...and the member learns privately that nothing was started (storage did not answer in time).
      const refusal = await privateRefusal(fake, asked, 10_000);
      expect(refusal.content).toMatch(/I cannot check usage limits right now \(my storage is not answering\)/);
      expect(model.requests).toHaveLength(0);
    } finally {
      await released;
      await promisify(other.close.bind(other))();
    }
  }, 20_000);
});
