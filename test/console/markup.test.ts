/**
 * The console's HTML: every value escaped by the one helper, and the bot's Discord markup rendered with
 * only its known forms made markup again (code, bold, mentions by name, times); anything else a member
 * or a tool wrote stays text.
 */
import { describe, expect, it } from 'vitest';
import { html } from '../../src/console/html.js';
import { discordMarkup } from '../../src/console/markup.js';

const names = { channel: (id: string) => (id === '1' ? 'general' : undefined), role: (id: string) => (id === '2' ? 'Mods <b>' : undefined), member: () => undefined };

describe('console markup', () => {
  it('escapes every value put into a page, attributes included', () => {
    const name = '"><img src=x onerror=alert(1)>';
    expect(html`<a title="${name}">${name}</a>`.text).toBe('<a title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</a>');
  });

  it('renders the bot\'s markup: code, bold, mentions by their (escaped) names, times in UTC', () => {
    expect(discordMarkup('**Mod** disabled `calculate` in <#1> for <@&2> at <t:0:f>', names).text)
      .toBe('<strong>Mod</strong> disabled <code>calculate</code> in <span class="mention channel">#general</span> for <span class="mention role">@Mods &lt;b&gt;</span> at <time>1970-01-01 00:00 UTC</time>');
  });

  it('keeps a script, a masked link and markup inside code as visible text', () => {
    const out = discordMarkup('“<script>alert(1)</script> [click](https://evil.example)” `<#1> **x**`', names).text;
    expect(out).toBe('“&lt;script&gt;alert(1)&lt;/script&gt; [click](https://evil.example)” <code>&lt;#1&gt; **x**</code>');
  });
});
