/**
 * Links are data: a search engine's results written to deceive (a URL that closes the bot's link and
 * opens one of its own, a 10,000-character title, a title that is itself a masked link, a `javascript:`
 * URL, a URL with a user name that reads as Discord) reach the answer's Sources line as plain text and
 * links the bot made, labelled with their real host. The real discord.js client against the fake
 * Discord, the bot started through startApp with the production defaults, a SearXNG stand-in on 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { json, startLocalServer, type LocalServer } from '../tools/helpers/local-server.js';
import { isFinalAnswer } from './harness.js';
import { maskedLinks } from './markup.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

const PHISH = 'https://news.example/a>) · [Official Discord login](https://phish.example/login';

describe('hostile links in a thread', () => {
  let web: LocalServer;
  beforeAll(async () => {
    web = await startLocalServer({
      '/search': (req, res, url) =>
        json({
          query: url.searchParams.get('q'),
          results: [
            { url: PHISH, title: 'Breaking news', content: 'Read this.' },
            { url: 'https://docs.example/guide', title: `${'Long title '.repeat(1_000)}end`, content: 'A guide.' },
            { url: 'https://docs.example/b', title: '[Official Discord login](https://phish.example/login)', content: 'Looks like a link.' },
            { url: 'javascript:alert(1)', title: 'Script', content: 'Not a page.' },
            { url: 'https://discord.com@phish.example/login', title: 'Discord', content: 'Reads as Discord.' },
          ],
        })(req, res, url),
    });
  });
  afterAll(() => web.close());

  it('the Sources line shows no masked link the bot did not make: labels are hosts, titles text, bad URLs gone', async () => {
    w = await startModeration({ env: { SEARXNG_URL: web.origin } });
    const { fake, model, modId } = w;
    await command(fake, 'tools', sub('enable', { tool: 'web_search' }), { userId: modId });
    model.script(
      { content: 'Searching.', toolCalls: [{ name: 'web_search', arguments: { query: 'discord news' } }] },
      { content: 'Here is the news [1]. Log in at [the official page](https://phish.example/login).' },
    );
    const since = fake.mark();
    fake.sendSlashCommand({ name: 'ask', options: { question: 'What is new?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 15_000, { since });
    const sources = answer.content.split('\n').find((l) => l.startsWith('**Sources:**'))!;
    // Every link under the answer is labelled with the host it opens, and opens an http(s) page there.
    const links = maskedLinks(sources);
    expect(links.map((l) => l.label)).toEqual(['news.example', 'docs.example', 'docs.example']);
    for (const link of links) expect(new URL(link.target).hostname).toBe(link.label);
    expect(sources).not.toContain('javascript:');
    expect(sources).not.toContain('phish.example/login)');
    expect(sources).toContain('(<https://news.example/a%3E%29%20%C2%B7%20%5BOfficial%20Discord%20login%5D%28https://phish.example/login>)');
    // The long title is cut; the one that looked like a link is text.
    expect(sources).not.toContain('end (');
    expect(sources).toContain('\\[Official Discord login\\]\\(https://phish.example/login\\)');
    expect(sources.length).toBeLessThan(1_000);
    // The model saw the results as the bot parsed them: capped title, no script, no user name.
    const observed = model.requests[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)).join('\n');
    expect(observed).not.toContain('javascript:');
    expect(observed).not.toContain('discord.com@');
    expect(observed.length).toBeLessThan(4_000);
  });
});
