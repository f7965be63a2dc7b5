/**
 * `/kb` and "Add to knowledge base" end to end: the real bot (through `startApp`) against the fake
 * Discord, attachments served by the fake's signed CDN, documents in the real knowledge base.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { kb } from '../../commands/kb.js';
import { addToKnowledgeBase } from '../../commands/kb-message.js';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { startLocalServer, type LocalServer } from '../tools/helpers/local-server.js';
import { addFile, auditActions, EPHEMERAL, FAQ, kbCommand, storedDocuments } from './kb-helpers.js';

let w: ModerationWorld | undefined;
let page: LocalServer | undefined;
afterEach(async () => {
  await w?.h.close();
  await page?.close();
  w = undefined;
  page = undefined;
});

describe('/kb end to end', () => {
  it('is visible to everyone (search is for anyone) while add, list and remove refuse a member without Manage Server, changing nothing', async () => {
    expect(kb.data.toJSON().default_member_permissions).toBeUndefined();
    expect(addToKnowledgeBase.data.toJSON().default_member_permissions).toBe(PermissionFlagsBits.ManageGuild.toString());
    w = await startModeration();
    const alice = w.fake.defaults.userId;
    await addFile(w, 'faq.md', FAQ);

    const add = await addFile(w, 'rules.md', '# Rules\n\nBe kind.', alice);
    expect(add.content).toBe('Only members with the **Manage Server** permission can use `/kb add`. Nothing was changed; ask a moderator to add the document.');
    expect(add.flags & EPHEMERAL).toBe(EPHEMERAL);
    const list = await kbCommand(w.fake, 'list', {}, alice);
    expect(list.content).toMatch(/^Only members with the \*\*Manage Server\*\* permission can use `\/kb list`\. Nothing was changed; `\/kb search` shows what the documents say\.$/);
    const remove = await kbCommand(w.fake, 'remove', { document: '1' }, alice);
    expect(remove.content).toMatch(/can use `\/kb remove`\. Nothing was changed; ask a moderator to remove the document\.$/);

    // Titles are not suggested to her either.
    const typed = w.fake.sendAutocomplete({ name: 'kb', subcommand: 'remove', options: { document: 'fa' }, focused: 'document', userId: alice });
    await w.fake.waitForCallback(typed.id);
    expect(typed.autocompleteChoices).toEqual([]);

    expect((await storedDocuments(w)).map((d) => d.title)).toEqual(['FAQ']);
    expect(await auditActions(w)).toEqual(['kb.add']);
  });

  it('a moderator adds a Markdown file: indexed, audited and posted to the log channel; the same file again is unchanged, an edited one replaces it', async () => {
    w = await startModeration();
    const { fake, modId } = w;
    const log = fake.addChannel({ name: 'mod-log', parentId: fake.defaults.categoryId });
    await command(fake, 'tools', sub('log-channel', { channel: log.id }), { userId: modId });

    const added = await addFile(w, 'faq.md', FAQ);
    expect(added.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(added.content).toBe(
      `✅ Added **FAQ** (#1): 2 passages, ${FAQ.length} bytes, from \`upload/faq.md\`. This server's documents: ${FAQ.length} bytes of 50 MB.\n` +
      '-# `search_knowledge` can find it from the next step of any run here (unless a `/tools` rule turns the tool off).',
    );
    const [doc] = await storedDocuments(w);
    expect(doc).toMatchObject({ id: '1', title: 'FAQ', source: 'upload/faq.md', format: 'markdown', passages: 2, bytes: FAQ.length });

    const posted = await fake.waitForMessage((m) => m.channelId === log.id && m.content.includes('knowledge base'));
    expect(posted.content).toBe(`🛠️ **Mod Erator** (<@${modId}>) added "FAQ" (#1, 2 passages, ${FAQ.length} bytes) from \`upload/faq.md\` in the knowledge base`);
    expect(posted.pings).toEqual({ everyone: false, users: [], roles: [] });

    const again = await addFile(w, 'faq.md', FAQ);
    expect(again.content).toMatch(/^✅ \*\*FAQ\*\* \(#1\) is already in the knowledge base with the same content; nothing was indexed again\./);
    const edited = await addFile(w, 'faq.md', `${FAQ}\n\n## Appeals\n\nWrite to the moderators.`);
    expect(edited.content).toMatch(/^✅ Replaced \*\*FAQ\*\* \(#\d+\): 3 passages/);
    expect((await storedDocuments(w)).map((d) => [d.title, d.passages])).toEqual([['FAQ', 3]]);

    const { auditLog } = await w.h.storage.guildSettings.get(w.guildId);
    expect(auditLog.map((e) => e.action)).toEqual(['tools.log-channel', 'kb.add', 'kb.add', 'kb.add']);
    expect(auditLog[2]).toMatchObject({ actorId: modId, actorName: 'Mod Erator', detail: expect.stringMatching(/^re-added "FAQ" .*\(unchanged\)$/) });
    const audit = await command(fake, 'tools', sub('audit'), { userId: modId });
    expect(audit.content).toContain('replaced "FAQ"');
  });

  it('refuses what cannot be added with an ephemeral reason each: binary and unknown files, the caps, an address the rules refuse, bad options', async () => {
    w = await startModeration({ env: { KNOWLEDGE_MAX_FILE_BYTES: '2000', KNOWLEDGE_MAX_BYTES: '5000' } });
    const { fake, modId } = w;
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    const refusals = [
      [await addFile(w, 'logo.png', png, modId, 'image/png'), 'logo.png is of type image/png; only Markdown (.md, .markdown), plain text (.txt), HTML (.html, .htm), PDF (.pdf) or Word (.docx) files can be added. Nothing was added.'],
      [await addFile(w, 'notes.md', png), /^❌ notes\.md looks like a binary file, not UTF-8 text; .* Nothing was added\.$/],
      [await addFile(w, 'big.md', 'word '.repeat(600)), '❌ big.md is 3 KB; a document may be at most 2 KB (KNOWLEDGE_MAX_FILE_BYTES). Nothing was added.'],
      [await kbCommand(fake, 'add', { url: 'http://169.254.169.254/latest/meta-data' }, modId), /^❌ Refusing to read 169\.254\.169\.254: it is .*Only public web addresses can be read\. Nothing was added\.$/],
      [await kbCommand(fake, 'add', { url: 'https://example.com/a', file: { filename: 'a.md', data: Buffer.from('a') } }, modId), 'Give a `file` or a `url`, not both: one document at a time. Nothing was added.'],
      [await kbCommand(fake, 'add', {}, modId), 'Give a `file` (Markdown, plain text, HTML, PDF or Word) or a `url` of a web page to add. Nothing was added.'],
    ] as const;
    for (const [reply, expected] of refusals) {
      expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
      if (typeof expected === 'string') expect(reply.content.replace(/^❌ /, '')).toBe(expected.replace(/^❌ /, ''));
      else expect(reply.content).toMatch(expected);
    }

    // The server's cap: two documents of 1.9 KB fit in 5 KB, a third does not.
    const section = (n: number) => `# Part ${n}\n\n${'lorem ipsum '.repeat(157)}`;
    expect((await addFile(w, 'one.md', section(1))).content).toMatch(/^✅ Added/);
    expect((await addFile(w, 'two.md', section(2))).content).toMatch(/^✅ Added/);
    const over = await addFile(w, 'three.md', section(3));
    expect(over.content).toMatch(/^❌ Adding "Part 3" \(2 KB\) would take this knowledge base past its 5 KB cap \(KNOWLEDGE_MAX_BYTES\); it already holds 4 KB\. Remove documents first\. Nothing was added\.$/);

    expect((await storedDocuments(w)).map((d) => d.title).sort()).toEqual(['Part 1', 'Part 2']);
    expect(await auditActions(w)).toEqual(['kb.add', 'kb.add']);
  });

  it('adds a web page through read_url\'s fetcher, cited by its address; list shows it; search, for anyone, ranks passages with their links', async () => {
    page = await startLocalServer({
      '/rules.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(
        '<html><head><title>Server rules</title></head><body><nav>Home</nav><h1>Server rules</h1><h2>Spoilers</h2>' +
        '<p>No spoilers outside the #spoilers channel for two weeks after a release.</p></body></html>'),
    });
    w = await startModeration({ allowLoopbackUrls: true });
    const { fake, modId } = w;
    const alice = fake.defaults.userId;
    const url = `${page.origin}/rules.html`;

    const empty = await kbCommand(fake, 'search', { query: 'spoilers' }, alice);
    expect(empty.content).toBe("This server's knowledge base has no documents yet; moderators add them with `/kb add`.");

    const added = await kbCommand(fake, 'add', { url }, modId);
    expect(added.content).toMatch(new RegExp(`^✅ Added \\*\\*Server rules\\*\\* \\(#1\\): 1 passage, \\d+ bytes, from <${url}>\\.`));
    await addFile(w, 'faq.md', FAQ);

    const list = await kbCommand(fake, 'list', {}, modId);
    expect(list.flags & EPHEMERAL).toBe(EPHEMERAL);
    const lines = list.content.split('\n');
    expect(lines[0]).toMatch(/^\*\*2 documents\*\*, \d+ bytes of 50 MB \(newest first\):$/);
    expect(lines[1]).toMatch(/^`#2` \*\*FAQ\*\* · 2 passages · \d+ bytes · <t:\d+:R> · `upload\/faq\.md`$/);
    expect(lines[2]).toMatch(new RegExp(`^\`#1\` \\*\\*Server rules\\*\\* · 1 passage · \\d+ bytes · <t:\\d+:R> · <${url}>$`));
    expect(await auditActions(w)).toEqual(['kb.add', 'kb.add', 'kb.list']);

    const found = await kbCommand(fake, 'search', { query: 'where can I post spoilers?' }, alice);
    expect(found.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(found.content).toMatch(new RegExp(`^\\*\\*1 passage\\*\\* from this server's documents, best first:\\n\\*\\*1\\.\\*\\* \\[Server rules › Spoilers\\]\\(<${url}>\\)\\n> No spoilers outside`));
    const two = await kbCommand(fake, 'search', { query: 'raid night tickets', limit: 2 }, alice);
    expect(two.content).toMatch(/^\*\*2 passages\*\*.*\n\*\*1\.\*\* FAQ › (Raids|Tickets) · `upload\/faq\.md`\n> .*\n\*\*2\.\*\* FAQ › (Raids|Tickets)/);
    const none = await kbCommand(fake, 'search', { query: 'submarine' }, alice);
    expect(none.content).toBe('No passage matches those words. The search matches words, not meaning: try other or fewer words.');
    // Searching changes nothing, so it is not audited.
    expect(await auditActions(w)).toEqual(['kb.add', 'kb.add', 'kb.list']);
  });

  it('remove suggests the documents by title and removes by id or exact title, audited', async () => {
    w = await startModeration();
    const { fake, modId } = w;
    await addFile(w, 'faq.md', FAQ);
    await addFile(w, 'rules.md', '# Rules\n\nBe kind to each other.');

    const typed = fake.sendAutocomplete({ name: 'kb', subcommand: 'remove', options: { document: 'fa' }, focused: 'document', userId: modId });
    await fake.waitForCallback(typed.id);
    expect(typed.autocompleteChoices).toEqual([{ name: '#1 FAQ', value: '1' }]);

    const removed = await kbCommand(fake, 'remove', { document: '1' }, modId);
    expect(removed.content).toBe('✅ Removed **FAQ** (#1, 2 passages) from the knowledge base.');
    const missing = await kbCommand(fake, 'remove', { document: 'FAQ' }, modId);
    expect(missing.content).toBe('There is no document "FAQ" here; `/kb list` shows them. Nothing was removed.');
    expect((await kbCommand(fake, 'remove', { document: 'rules' }, modId)).content).toBe('✅ Removed **Rules** (#2, 1 passage) from the knowledge base.');

    expect(await storedDocuments(w)).toEqual([]);
    const { auditLog } = await w.h.storage.guildSettings.get(w.guildId);
    expect(auditLog.map((e) => [e.action, e.detail])).toEqual([
      ['kb.add', expect.any(String)],
      ['kb.add', expect.any(String)],
      ['kb.remove', 'removed "FAQ" (#1) from the knowledge base (was `upload/faq.md`)'],
      ['kb.remove', 'removed "Rules" (#2) from the knowledge base (was `upload/rules.md`)'],
    ]);
  });
});
