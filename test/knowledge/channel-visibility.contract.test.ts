/**
 * Passages from a channel's message are found only by those who can view that channel; documents
 * added otherwise stay server-wide. The same on SQLite (always) and PostgreSQL (when reachable), and
 * on an index made before documents remembered their channel.
 */
import pg from 'pg';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFromDiscordMessage, openKnowledgeBase, type KnowledgeBase } from '../../src/knowledge/index.js';
import { POSTGRES_URL } from '../state/helpers/targets.js';
import { dropPostgresTables, knowledgeTargets, openOn, type KnowledgeTarget, type OpenedKnowledge } from './helpers/targets.js';

const GUILD = '123456789012345678';
const MODS = '223456789012345671';
const GENERAL = '223456789012345672';

const fromChannel = (channelId: string, messageId: string, content: string) =>
  documentFromDiscordMessage({ guildId: GUILD, channelId, messageId, content, authorName: 'Mira' });
const canSee = (...visible: string[]) => (channelId: string) => visible.includes(channelId);

/** Drop the channel column, as an index made by the version before it existed has none. */
async function dropChannelColumn(target: KnowledgeTarget, prefix: string): Promise<void> {
  const sql = `ALTER TABLE ${prefix}documents DROP COLUMN channel_id`;
  if (target.kind === 'postgres') {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
    return;
  }
  const file = new URL(target.url.replace(/^sqlite:\/\//, 'file://')).pathname;
  const db = new sqlite3.Database(file);
  await new Promise<void>((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
  await new Promise<void>((resolve) => db.close(() => resolve()));
}

for (const target of await knowledgeTargets('kb-channels')) {
  describe.runIf(target.available)(`channel-bound passages on ${target.kind}`, () => {
    let opened: OpenedKnowledge;
    let kb: KnowledgeBase;
    beforeAll(async () => {
      opened = await openOn(target, 'channels');
      kb = opened.kb;
    });
    afterAll(() => opened?.cleanup());

    it("remembers a message's channel and shows its passages only to those who can view it; /kb add documents stay server-wide", async () => {
      const secret = await kb.add(GUILD, fromChannel(MODS, '323456789012345671', 'The ban appeal password is heron.'));
      const open = await kb.add(GUILD, fromChannel(GENERAL, '323456789012345672', 'Ban appeals go through the appeal form.'));
      const file = await kb.add(GUILD, { source: 'upload/rules.md', format: 'markdown', content: '# Rules\n\nA ban appeal is answered within a week.' });
      expect(secret.document.channelId).toBe(MODS);
      expect(open.document.channelId).toBe(GENERAL);
      expect(file.document.channelId).toBeUndefined();
      expect((await kb.list(GUILD)).find((d) => d.id === secret.document.id)?.channelId).toBe(MODS);

      const titles = async (canView?: (id: string) => boolean) => (await kb.search(GUILD, 'ban appeal', { limit: 10, canView })).map((h) => h.source).sort();
      expect(await titles(canSee(GENERAL))).toEqual(['https://discord.com/channels/123456789012345678/223456789012345672/323456789012345672', 'upload/rules.md']);
      expect(await titles(canSee(GENERAL, MODS))).toHaveLength(3);
      expect(await titles(canSee())).toEqual(['upload/rules.md']);
      expect(await titles()).toHaveLength(3); // no predicate: the terminal sees everything
      const [hit] = await kb.search(GUILD, 'heron password', { canView: canSee(MODS) });
      expect(hit).toMatchObject({ channelId: MODS });
    });

    it('still fills the results with passages the member may see when hidden ones rank first', async () => {
      for (let i = 0; i < 12; i++) await kb.add('busy', { ...fromChannel(MODS, `42345678901234${String(5000 + i)}`, `Quokka quokka quokka note ${i}.`), source: `mods-${i}` });
      for (let i = 0; i < 3; i++) await kb.add('busy', { source: `open-${i}.md`, format: 'markdown', content: `A note that mentions a quokka once, number ${i}, among many other words about nothing much.` });
      const hits = await kb.search('busy', 'quokka', { limit: 3, canView: canSee(GENERAL) });
      expect(hits.map((h) => h.source).sort()).toEqual(['open-0.md', 'open-1.md', 'open-2.md']);
    });

    it('an index made before documents remembered their channel gets the column, and its message documents their channel', async () => {
      const old = await openOn(target, 'channels-old');
      await old.kb.add(GUILD, fromChannel(MODS, '523456789012345671', 'The moderator rota is on the pinned sheet.'));
      await old.kb.add(GUILD, { source: 'upload/rota.md', format: 'markdown', content: 'The rota changes every month.' });
      await old.kb.close();
      await dropChannelColumn(target, old.prefix);
      const reopened = await openKnowledgeBase(target.url, { baseDir: process.cwd(), prefix: old.prefix, logger: () => {} });
      try {
        expect((await reopened.search(GUILD, 'rota', { canView: canSee(GENERAL) })).map((h) => h.source)).toEqual(['upload/rota.md']);
        expect(await reopened.search(GUILD, 'rota', { canView: canSee(MODS) })).toHaveLength(2);
        // Added again, the same message is indexed once more, with its channel.
        const again = await reopened.add(GUILD, fromChannel(MODS, '523456789012345671', 'The moderator rota is on the pinned sheet.'));
        expect(again.document.channelId).toBe(MODS);
      } finally {
        await reopened.close();
        if (target.kind === 'postgres') await dropPostgresTables(old.prefix);
      }
    });
  });
}
