/**
 * What a file attached to a question is, by its name and the type Discord reports: an image a vision
 * model can take, a text file read into the question, or something the bot does not read (and why).
 */

/** Image types OpenAI-compatible vision models take (non-animated GIF included). */
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** Text files by extension: documents, data, logs and source code. */
const TEXT_EXTENSIONS = new Set([
  'txt', 'text', 'md', 'markdown', 'rst', 'csv', 'tsv', 'json', 'jsonl', 'ndjson', 'log', 'yaml', 'yml', 'toml', 'ini',
  'cfg', 'conf', 'xml', 'html', 'htm', 'css', 'scss', 'js', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'tsx', 'jsx', 'py', 'rb',
  'go', 'rs', 'java', 'kt', 'kts', 'c', 'h', 'cc', 'cpp', 'hpp', 'cs', 'php', 'sh', 'bash', 'zsh', 'ps1', 'sql', 'swift',
  'lua', 'r', 'pl', 'scala', 'ex', 'exs', 'erl', 'hs', 'ml', 'clj', 'dart', 'vue', 'svelte', 'gradle', 'tf', 'proto',
  'graphql', 'tex', 'diff', 'patch', 'srt', 'vtt',
]);

/** Names of text files that have no extension. */
const TEXT_NAMES = new Set(['dockerfile', 'makefile', 'readme', 'license', 'gemfile', 'procfile']);

export type FileKind = { kind: 'image'; mime: string } | { kind: 'text' } | { kind: 'other'; why: string };

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** Decide by extension first (Discord's content type is the uploader's guess), then by content type. */
export function fileKind(name: string, contentType: string | null): FileKind {
  const ext = extensionOf(name);
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const image = IMAGE_TYPES[ext] ?? Object.values(IMAGE_TYPES).find((mime) => mime === type);
  if (image) return { kind: 'image', mime: image };
  if (TEXT_EXTENSIONS.has(ext) || TEXT_NAMES.has(name.toLowerCase()) || type.startsWith('text/') || type === 'application/json') {
    return { kind: 'text' };
  }
  if (type.startsWith('image/')) return { kind: 'other', why: `${ext ? `.${ext}` : type} images are not a kind models take (PNG, JPEG, WebP or GIF are)` };
  const what = ext ? `.${ext} files` : 'files of this type';
  return { kind: 'other', why: `${what} are not read; I read text files (.txt, .md, .csv, .json, .log, source code) and images` };
}

/** A size for people: 1.2 MB, 340 KB, 12 bytes. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${Math.round(bytes / 1_000)} KB`;
  return `${bytes} bytes`;
}
