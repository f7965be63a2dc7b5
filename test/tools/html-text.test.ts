/**
 * HTML to text for read_url and Wikipedia snippets: readable output, and linear time on hostile markup.
 */
import { describe, expect, it } from 'vitest';
import { capText, decodeEntities, htmlToText } from '../../src/knowledge/parse/html-text.js';

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
    const { title } = htmlToText('<head><TITLE> Caf&eacute; &#8211; &#x1F600; &amp;co &nosuch; </TITLE></head>');
    expect(title).toBe('Café – 😀 &co &nosuch;'); // unknown named references stay as written
    // As HTML5 decodes them: a no-break space stays one, NUL and lone surrogates become U+FFFD.
    expect(decodeEntities('&lt;b&gt; &quot;q&quot; &nbsp;&mdash; &#0; &#xD800;')).toBe('<b> "q" \u00a0— \ufffd \ufffd');
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

describe('decodeEntities', () => {
  it('decodes every named reference of HTML5, not only the common ones', () => {
    expect(decodeEntities('Caf&eacute;')).toBe('Café');
    expect(decodeEntities('&frac12; cup')).toBe('½ cup');
    expect(decodeEntities('A &rarr; B &larr; C')).toBe('A → B ← C');
    expect(decodeEntities('&Omega; &alpha;&beta; &notin; &hearts; &NotGreaterFullEqual;')).toBe('Ω αβ ∉ ♥ ≧̸');
  });

  it('decodes numeric references, decimal and hexadecimal, with the replacements HTML5 makes', () => {
    expect(decodeEntities('&#233; &#xE9; &#XE9; &#x1F600; &#0065;')).toBe('é é é 😀 A');
    // Windows-1252 numbers mean what browsers show; out of range means U+FFFD.
    expect(decodeEntities('&#150; &#128; &#x110000; &#99999999999;')).toBe('– € \ufffd \ufffd');
    expect(decodeEntities('&#233 without a semicolon')).toBe('é without a semicolon');
  });

  it('leaves unknown names and bare ampersands as written', () => {
    expect(decodeEntities('&nosuchthing; &Eacutee; &; &#; &#x; AT&T R&D a && b')).toBe('&nosuchthing; Ée; &; &#; &#x; AT&T R&D a && b');
  });

  it('accepts a missing semicolon only where HTML5 does: the legacy names', () => {
    expect(decodeEntities('&amp &lt3 &copy 2024 Caf&eacute &frac12 &nbsp')).toBe('& <3 © 2024 Café ½ \u00a0');
    expect(decodeEntities('&notit; &ampx')).toBe('¬it; &x'); // the longest legacy prefix wins, as in a browser
    expect(decodeEntities('&rarr &hellip &mdash')).toBe('&rarr &hellip &mdash'); // not legacy names: need the semicolon
  });
});

describe('htmlToText with full references and hostile markup', () => {
  it('decodes references in body text and drops the invisible characters they can produce', () => {
    const html = '<p>Caf&eacute; &frac12; &rarr; x</p><p>soft&shy;hyphen zero&ZeroWidthSpace;width &#x202E;evil&#x202C;</p>';
    expect(htmlToText(html).text).toBe('Café ½ → x\n\nsofthyphen zerowidth evil');
  });

  it('stays correct on markup built to make a quadratic scanner take seconds', () => {
    // 50,000 unclosed, nested divs, each with references that stop one letter short of the longest
    // name in the table (the worst case for a decoder that backtracks), about 1 MB in all.
    const unit = '<div>&frac12 &CounterClockwiseContourIntegra &#x41; x';
    const count = 20_000;
    const { text } = htmlToText(`<main>${unit.repeat(count)}</main>`);
    const line = '½ &CounterClockwiseContourIntegra A x';
    expect(text.length).toBe(count * line.length + count - 1);
    expect(text).toBe(Array.from({ length: count }, () => line).join('\n'));
  });

  it('stays correct on a megabyte of ampersands and digits that never finish a reference', () => {
    const noise = '&'.repeat(300_000) + '&#' + '9'.repeat(300_000) + ' ok &amp' + '&#x'.repeat(100_000);
    const { text } = htmlToText(`<p>${noise}</p>`);
    expect(text).toBe(`${'&'.repeat(300_000)}\ufffd ok &${'&#x'.repeat(100_000)}`);
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
