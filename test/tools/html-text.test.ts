/**
 * HTML to text for read_url and Wikipedia snippets: readable output, and linear time on hostile markup.
 */
import { describe, expect, it } from 'vitest';
import { capText, decodeEntities, htmlToText } from '../../tools/html-text.js';

describe('htmlToText', () => {
  it('prefers the main element over the rest of the body', () => {
    const html = '<body><header>Site</header><main><p>Main story.</p></main><p>Sidebar junk</p></body>';
    expect(htmlToText(html).text).toBe('Main story.');
  });

  it('falls back to article, then body, then the whole document', () => {
    expect(htmlToText('<body><div>Menu</div><article><p>Story</p></article></body>').text).toBe('Story');
    expect(htmlToText('<html><body><p>Only body</p></body></html>').text).toBe('Only body');
    expect(htmlToText('<p>Fragment &amp; more</p>').text).toBe('Fragment & more');
  });

  it('drops scripts, styles, comments, svg and templates whatever their letter case', () => {
    const html = '<p>a</p><SCRIPT type="x">alert(1)</SCRIPT><Style>p{}</Style><!-- hidden --><svg><text>svg</text></svg><template>t</template><p>b</p>';
    expect(htmlToText(html).text).toBe('a\n\nb');
  });

  it('reads the title and decodes character references', () => {
    const { title } = htmlToText('<head><TITLE> Caf&eacute; &#8211; &#x1F600; &amp;co </TITLE></head>');
    expect(title).toBe('Caf&eacute; – 😀 &co'); // unknown named references stay as written
    expect(decodeEntities('&lt;b&gt; &quot;q&quot; &nbsp;&mdash; &#0; &#xD800;')).toBe('<b> "q"  —  ');
  });

  it('lays out headings, paragraphs, list items and table cells as lines', () => {
    const html = '<h2>Facts</h2><p>One.</p><ul><li>first</li><li>second</li></ul><table><tr><td>a</td><td>b</td></tr></table>';
    expect(htmlToText(html).text).toBe('Facts\n\nOne.\n\n- first\n- second\n\na b');
  });

  it('takes linear time on thousands of unclosed tags', () => {
    const hostile = '<script'.repeat(50_000) + '<!--'.repeat(50_000) + '<style>'.repeat(50_000);
    const started = performance.now();
    htmlToText(`<p>start</p>${hostile}`);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('capText', () => {
  it('leaves short text alone and cuts long text at a sentence end', () => {
    expect(capText('Short.', 100)).toEqual({ text: 'Short.', cut: false });
    expect(capText('One two three. Four five six. Seven eight nine.', 35)).toEqual({ text: 'One two three. Four five six.', cut: true });
  });

  it('cuts mid-sentence with an ellipsis when no sentence end is near', () => {
    expect(capText('a'.repeat(50), 10)).toEqual({ text: `${'a'.repeat(10)}…`, cut: true });
  });
});
