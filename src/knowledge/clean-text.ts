/**
 * Passages are untrusted text that ends up in front of the model and in Discord messages. Characters
 * a reader cannot see but a model or a terminal acts on are removed: Unicode tag characters (which can
 * smuggle hidden instructions), bidi overrides and isolates (which reorder what is displayed), and
 * zero-width characters, except a zero-width joiner inside an emoji sequence, where it is part of the
 * emoji. Control characters other than tab and newline go too.
 *
 * A local helper: the shared `src/agent/clean-text.ts` did not exist on this branch when it was written.
 */

const TAGS = /[\u{E0000}-\u{E007F}]/gu;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/g;
const ZERO_WIDTH = /[\u200B\u200C\u2060\uFEFF]/g;
// A joiner is kept only between two pictographs (an optional variation selector or skin tone may follow the first).
const LONE_JOINER = /(?<!\p{Extended_Pictographic}[\uFE0F\u{1F3FB}-\u{1F3FF}]?)\u200D|\u200D(?!\p{Extended_Pictographic})/gu;
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** `text` without invisible and spoofing characters; line ends normalized to `\n`. */
export function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(TAGS, '')
    .replace(BIDI, '')
    .replace(ZERO_WIDTH, '')
    .replace(LONE_JOINER, '')
    .replace(CONTROLS, '');
}
