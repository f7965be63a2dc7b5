import { describe, expect, it } from 'vitest';
import { plainMentions, type MentionNames, threadName } from '../../src/discord/members.js';

const names: MentionNames = {
  user: (id) => ({ '111': 'Alice', '222': '@everyone' })[id],
  role: (id) => ({ '333': 'Moderators', '900': '@everyone' })[id],
  channel: (id) => ({ '444': 'general' })[id],
};
const unknown: MentionNames = { user: () => undefined, role: () => undefined, channel: () => undefined };

describe('mention syntax as plain words', () => {
  it.each([
    ['@everyone look', 'everyone look'],
    ['hey @here, quick one', 'hey here, quick one'],
    ['ask <@111> about it', 'ask @Alice about it'],
    ['ask <@!111> about it', 'ask @Alice about it'],
    ['ping <@&333> now', 'ping @Moderators now'],
    ['see <#444>', 'see #general'],
    ['@everyone <@&333> in <#444> from <@111>', 'everyone @Moderators in #general from @Alice'],
    ['the @everyone role <@&900>', 'the everyone role everyone'],
    ['a member called <@222>', 'a member called everyone'],
    ['run </ask:123456789012345678> first', 'run /ask first'],
  ])('%s', (question, expected) => {
    expect(plainMentions(question, names)).toBe(expected);
  });

  it('uses a neutral word when the name is not known', () => {
    expect(plainMentions('<@555> <@!555> <@&666> <#777>', unknown)).toBe('@user @user @role #channel');
  });

  it('leaves text without mention syntax alone', () => {
    for (const text of ['What is 17 * 3?', 'email me at me@example.com', 'a <b> tag and <@ not an id>', 'C# <#> and #general']) {
      expect(plainMentions(text, unknown)).toBe(text);
    }
  });

  it('is what threadName puts in the thread name, and nothing there reads as a ping', () => {
    const name = threadName('@everyone <@&333> is <#444> down? cc <@!111> @here', names);
    expect(name).toBe('everyone @Moderators is #general down? cc @Alice here');
    expect(threadName('<@&1> <@2>')).toBe('@role @user');
    expect(threadName('x'.repeat(95) + ' <@&333>', names).length).toBeLessThanOrEqual(100);
  });
});
