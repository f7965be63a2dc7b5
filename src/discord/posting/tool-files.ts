/**
 * Files tools hand back (charts), as the thread posts them: at their step in the step log, and with
 * the answer. A message takes at most 10 files; where the bot may not attach files, the answer says so.
 */
import type { ToolAttachment } from '../../agent/tool.js';
import type { FileOut } from './message-mirror.js';

/** Discord's limit of files on one message. */
export const MAX_FILES_PER_MESSAGE = 10;

/** Tool attachments as files to post; names made unique (two charts both called chart.png). */
export function filesOut(attachments: readonly ToolAttachment[]): FileOut[] {
  const seen = new Map<string, number>();
  return attachments.map((a) => {
    const count = (seen.get(a.name) ?? 0) + 1;
    seen.set(a.name, count);
    const name = count === 1 ? a.name : a.name.replace(/(\.[^.]*)?$/, (ext) => `-${count}${ext}`);
    return { name, data: Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength), ...(a.description ? { description: a.description } : {}) };
  });
}

/** The step log's caption over a tool's files. */
export function filesCaption(tool: string, files: readonly FileOut[]): string {
  return `-# 📊 ${tool}: ${files.map((f) => f.name.replace(/[`*_~|\\]/g, '')).join(', ')}`;
}

/** A line under the answer when its files cannot be posted here (no Attach Files), or not all of them fit. */
export function filesNote(count: number, canAttachFiles: boolean, room: number): string {
  if (count === 0) return '';
  if (!canAttachFiles) return `\n-# ⚠️ ${count === 1 ? 'A chart was' : `${count} charts were`} drawn but cannot be shown: I lack the Attach Files permission here.`;
  if (count > room) return `\n-# ${count - room} more chart${count - room === 1 ? '' : 's'} did not fit on this message (it holds ${MAX_FILES_PER_MESSAGE} files); see the steps above.`;
  return '';
}
