/**
 * Text hygiene for everything that crosses a trust boundary: tool output on its way to the model, and
 * questions, display names and answers on their way to Discord. Invisible characters are how text hides
 * instructions from the people reading it ("ASCII smuggling" with Unicode tag characters) and how it
 * makes code or names read differently from what they are (Trojan Source bidi overrides, zero-width
 * characters in look-alike names). Pure functions, no dependencies: the engine, the Discord layer and
 * the knowledge base all import this one home.
 *
 * Two cleaners, on purpose: `cleanText` for what is shown or sent now, and `cleanDocumentText` for
 * documents the knowledge base keeps, whose narrower rules stored passages were cleaned with.
 */
import { TEXT_CAPS } from './text-caps.js';

// A subdivision flag (England, Scotland, Wales) is the only legitimate use of tag characters:
// U+1F3F4, two to five tag letters or digits, then CANCEL TAG. A payload hidden there is five characters.
const SUBDIVISION_FLAG = '\\u{1F3F4}[\\u{E0061}-\\u{E007A}]{2}[\\u{E0030}-\\u{E0039}\\u{E0061}-\\u{E007A}]{1,3}\\u{E007F}';
// ZWJ glues emoji into one picture (👨‍👩‍👧, 🏳️‍🌈, 👩🏽‍💻): kept only between an emoji (or its
// variation selector or skin tone) and the next emoji, removed everywhere else.
const EMOJI_ZWJ = '(?<=[\\p{Extended_Pictographic}\\u{FE0F}\\u{1F3FB}-\\u{1F3FF}])\\u200D(?=\\p{Extended_Pictographic})';
// The project's own defences put U+200B after "@" (so a name cannot ping), between backticks (so
// text cannot close a code block) and between "]" and "(" (so text cannot make a masked link);
// removing those would undo them, and they hide nothing.
const DEFENSIVE_ZWSP = '(?<=[@`\\]])\\u200B';

/**
 * Characters that render as nothing or reorder what is around them:
 * C0/C1 controls except tab and newlines; soft hyphen; Arabic letter mark; combining grapheme joiner;
 * Hangul fillers and the Mongolian vowel separator (blank-looking names); zero-width space,
 * non-joiner and joiner; LRM/RLM; bidi embeddings, overrides and isolates; word joiner, invisible
 * operators and deprecated format characters; BOM / zero-width no-break space; interlinear annotations;
 * and every Unicode tag character.
 */
const INVISIBLE =
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5' +
  '\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u206F\\u3164\\uFEFF\\uFFA0\\uFFF9-\\uFFFB' +
  '\\u{E0000}-\\u{E007F}]';

const CLEAN = new RegExp(`(${SUBDIVISION_FLAG}|${EMOJI_ZWJ}|${DEFENSIVE_ZWSP})|${INVISIBLE}`, 'gu');

/**
 * `text` without invisible and spoofing characters (see INVISIBLE above); emoji sequences, subdivision
 * flags, tabs and newlines survive. Idempotent, and never makes text longer.
 */
export function cleanText(text: string): string {
  return text.replace(CLEAN, (match, kept: string | undefined) => kept ?? '');
}

// Whatever shows nothing on its own: whitespace and separators, controls and format characters,
// unassigned and private-use code points, lone combining marks, and the Braille blank.
const BLANK = /^[\s\p{Z}\p{C}\p{M}\u2800]*$/u;

/** True when `text` has nothing to read: empty, or only whitespace, controls and invisible characters. */
export function isBlankQuestion(text: string): boolean {
  return BLANK.test(cleanText(text));
}

/**
 * A display name made safe to show inside our own Markdown: invisible characters removed, Markdown
 * and heading/quote markers escaped so the name cannot format (or break) the message around it, "@"
 * followed by U+200B so it can never read as a mention, and at most `max` characters (cut before an
 * escape, never through one).
 */
export function escapeDisplayName(name: string, max: number = TEXT_CAPS.displayName): string {
  return escapeMarkdown(name, max, '');
}

/**
 * Untrusted text (a page's title, a tool's description) shown inside our own Markdown as plain text, on
 * one line: cleaned, every Markdown character escaped (so `[label](url)` stays text and cannot become a
 * link), mentions broken, at most `max` visible characters with `…` when cut. Reads at most `max`
 * characters of `text` past the cleaning, so a 1 MB title costs what it shows.
 */
export function escapeInline(text: string, max: number): string {
  return escapeMarkdown(text, max, '…');
}

function escapeMarkdown(text: string, max: number, cutMark: string): string {
  // Cleaning removes characters, so read a little more than `max`, never the whole of a huge text.
  const clean = cleanText(text.length > max * 4 + 64 ? text.slice(0, max * 4 + 64) : text).replace(/[\r\n\t\u2028\u2029]+/g, ' ').trim();
  let out = '';
  let visible = 0;
  for (const ch of clean) {
    if (visible >= max) return `${out}${cutMark}`;
    visible++;
    if (ch === '@') out += '@\u200b';
    else if (/[\\*_~`|>#[\]()<-]/.test(ch)) out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/**
 * A URL from outside (a tool's result, a search hit) as the bot may print it, or undefined: parsed as
 * browsers parse it (WHATWG URL), http or https only, no user name or password (`https://discord.com@phish.example`
 * reads as Discord and goes elsewhere), at most TEXT_CAPS.url characters. The result is the parsed URL's own
 * serialization with the characters Markdown gives meaning to percent-encoded as well, so it can sit
 * inside `<…>` or `(<…>)` and never close them, open a masked link or start formatting.
 */
export function safeHttpUrl(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.length > TEXT_CAPS.url * 3) return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || !url.hostname) return undefined;
  const href = url.href.replace(/[()[\]<>|`'"\\*\s]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return href.length <= TEXT_CAPS.url ? href : undefined;
}

/**
 * A link the bot makes to a URL from outside: the label is the URL's own host (what the link really
 * opens, punycode for look-alike letters), never words a tool chose, and `<…>` keeps Discord from
 * embedding a preview of the page. Undefined when the URL is not one the bot prints (see safeHttpUrl).
 */
export function hostLink(raw: unknown): string | undefined {
  const href = safeHttpUrl(raw);
  if (!href) return undefined;
  // A parsed host is ASCII letters, digits, dots and hyphens, or (allowed by the URL standard) `*`, `_`, `~`.
  return `[${new URL(href).hostname.replace(/[*_~]/g, '\\$&')}](<${href}>)`;
}

/**
 * Text a model wrote from what tools told it (a thought in the step log), with its Markdown links made
 * inert: `[label](target)` keeps its words but cannot become a masked link, whose label could say
 * anything about where it goes. A masked link needs `](` side by side, so U+200B goes between them
 * (escaping a bracket would not do: Discord's parser reads `[label\](url)` as a link). Bare URLs stay
 * clickable, as Discord shows them in full.
 */
export function inertLinks(text: string): string {
  return text.replace(/\](?=\()/g, ']\u200b');
}

/**
 * A display name as the speaker label the model sees, `[label] message`: the one way speakers are
 * labelled (many OpenAI-compatible servers drop the API's `name` field). One short line of the name's
 * own letters (so "田中" stays "田中") that cannot close its bracket, start a new line or smuggle
 * hidden text; `user <id>` when nothing readable is left.
 */
export function speakerTag(name: string, fallbackId: string): string {
  const tag = cleanText(name)
    .normalize('NFKC')
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/[\p{Cf}\u3164\u115f\u1160\uffa0]+/gu, '')
    .replace(/[[\]]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return [...tag].slice(0, TEXT_CAPS.speakerLabel).join('').trim() || `user ${fallbackId}`;
}

// Documents: every tag character (a subdivision flag too), bidi controls, zero-width characters and
// controls, with line ends normalized; soft hyphens and direction marks are kept, as passages already
// stored were cleaned this way.
const DOC_TAGS = /[\u{E0000}-\u{E007F}]/gu;
const DOC_BIDI = /[\u202A-\u202E\u2066-\u2069]/g;
const DOC_ZERO_WIDTH = /[\u200B\u200C\u2060\uFEFF]/g;
// A joiner is kept only between two pictographs (an optional variation selector or skin tone may follow the first).
const DOC_LONE_JOINER = /(?<!\p{Extended_Pictographic}[\uFE0F\u{1F3FB}-\u{1F3FF}]?)\u200D|\u200D(?!\p{Extended_Pictographic})/gu;
const DOC_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/**
 * A document's text (passages, titles, headings, message authors) for the knowledge base: without
 * Unicode tag characters, bidi overrides and isolates, zero-width characters (but a joiner inside an
 * emoji) and controls other than tab and newline; line ends normalized to `\n`.
 */
export function cleanDocumentText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(DOC_TAGS, '')
    .replace(DOC_BIDI, '')
    .replace(DOC_ZERO_WIDTH, '')
    .replace(DOC_LONE_JOINER, '')
    .replace(DOC_CONTROLS, '');
}
