/**
 * Limits Discord enforces on message bodies: 2,000-character content, 10 embeds of at most 6,000
 * characters in all, 5 action rows of 5 components, well-formed allowed_mentions.
 */
import { errors, FormErrors } from './api-error.js';

type Json = Record<string, unknown>;
type Path = Array<string | number>;

export const LIMITS = {
  content: 2000,
  embeds: 10,
  embedTotal: 6000,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  authorName: 256,
  actionRows: 5,
  rowComponents: 5,
  customId: 100,
  buttonLabel: 80,
  threadName: 100,
  attachments: 10,
} as const;

/** Discord counts characters, not UTF-16 units. */
export function charLength(s: string): number {
  return [...s].length;
}

export function validateMessageBody(body: Json, errs: FormErrors, prefix: Path = []): void {
  const { content, embeds, components, allowed_mentions: allowed } = body;
  if (content !== undefined && content !== null) {
    if (typeof content !== 'string') errs.add([...prefix, 'content'], 'STRING_TYPE_CONVERT', 'Could not interpret value as string.');
    else if (charLength(content) > LIMITS.content) {
      errs.add([...prefix, 'content'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.content} or fewer in length.`);
    }
  }
  if (Array.isArray(embeds)) validateEmbeds(embeds, errs, [...prefix, 'embeds']);
  const flags = typeof body.flags === 'number' ? body.flags : 0;
  if (Array.isArray(components) && (flags & (1 << 15)) === 0) validateRows(components, errs, [...prefix, 'components']);
  if (allowed !== undefined && allowed !== null) validateAllowedMentions(allowed, errs, [...prefix, 'allowed_mentions']);
}

function validateEmbeds(embeds: unknown[], errs: FormErrors, path: Path): void {
  if (embeds.length > LIMITS.embeds) errs.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.embeds} or fewer in length.`);
  let total = 0;
  embeds.forEach((raw, i) => {
    const e = (raw ?? {}) as Json;
    const text = (v: unknown) => (typeof v === 'string' ? charLength(v) : 0);
    const check = (field: Path, v: unknown, max: number) => {
      total += text(v);
      if (text(v) > max) errs.add([...path, i, ...field], 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
    };
    check(['title'], e.title, LIMITS.title);
    check(['description'], e.description, LIMITS.description);
    check(['footer', 'text'], (e.footer as Json | undefined)?.text, LIMITS.footer);
    check(['author', 'name'], (e.author as Json | undefined)?.name, LIMITS.authorName);
    const fields = Array.isArray(e.fields) ? (e.fields as Json[]) : [];
    if (fields.length > LIMITS.fields) errs.add([...path, i, 'fields'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.fields} or fewer in length.`);
    fields.forEach((f, j) => {
      check(['fields', j, 'name'], f.name, LIMITS.fieldName);
      check(['fields', j, 'value'], f.value, LIMITS.fieldValue);
    });
  });
  if (total > LIMITS.embedTotal) errs.add(path, 'MAX_EMBED_SIZE_EXCEEDED', `Embed size exceeds maximum size of ${LIMITS.embedTotal}`);
}

function validateRows(rows: unknown[], errs: FormErrors, path: Path): void {
  if (rows.length > LIMITS.actionRows) errs.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.actionRows} or fewer in length.`);
  rows.forEach((raw, i) => {
    const row = (raw ?? {}) as Json;
    const children = Array.isArray(row.components) ? (row.components as Json[]) : [];
    if (children.length > LIMITS.rowComponents) {
      errs.add([...path, i, 'components'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.rowComponents} or fewer in length.`);
    }
    children.forEach((c, j) => {
      if (typeof c.custom_id === 'string' && charLength(c.custom_id) > LIMITS.customId) {
        errs.add([...path, i, 'components', j, 'custom_id'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.customId} or fewer in length.`);
      }
      if (typeof c.label === 'string' && charLength(c.label) > LIMITS.buttonLabel) {
        errs.add([...path, i, 'components', j, 'label'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.buttonLabel} or fewer in length.`);
      }
    });
  });
}

function validateAllowedMentions(raw: unknown, errs: FormErrors, path: Path): void {
  const a = raw as Json;
  const parse = Array.isArray(a.parse) ? a.parse.map(String) : [];
  for (const p of parse) {
    if (!['users', 'roles', 'everyone'].includes(p)) errs.add([...path, 'parse'], 'BASE_TYPE_CHOICES', `Value must be one of {'users', 'roles', 'everyone'}.`);
  }
  for (const kind of ['users', 'roles'] as const) {
    const list = a[kind];
    if (parse.includes(kind) && Array.isArray(list) && list.length > 0) {
      errs.add(path, 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE', `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`);
    }
    if (Array.isArray(list) && list.length > 100) errs.add([...path, kind], 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
  }
}

/** A message must carry something: content, embeds, components, files, stickers or a poll. */
export function assertNotEmpty(m: { content: string; embeds: unknown[]; components: unknown[]; attachments: unknown[]; stickers?: unknown }): void {
  const hasStickers = Array.isArray(m.stickers) && m.stickers.length > 0;
  if (m.content.trim() === '' && m.embeds.length === 0 && m.components.length === 0 && m.attachments.length === 0 && !hasStickers) {
    throw errors.emptyMessage();
  }
}

export function validateThreadName(name: unknown, errs: FormErrors, required: boolean): void {
  if (name === undefined && !required) return;
  if (typeof name !== 'string' || charLength(name) < 1 || charLength(name) > LIMITS.threadName) {
    errs.add(['name'], 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${LIMITS.threadName} in length.`);
  }
}
