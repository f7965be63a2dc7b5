/**
 * Files tools hand back (charts), as the terminal shows them: written to a folder under their own
 * names (never over an existing file: `chart.png`, then `chart-2.png`), and named in the output.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ToolAttachment } from '../agent/tool.js';
import type { AgentEvent } from '../agent/types.js';

/** Write `attachments` into `dir` (made if missing); the paths written, in order. */
export function saveAttachments(dir: string, attachments: readonly ToolAttachment[]): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return attachments.map((attachment) => {
    // The name comes from a tool: only its last part, and only safe characters.
    const safe = path.basename(attachment.name).replace(/[^A-Za-z0-9._-]/g, '_') || 'file';
    const { name, ext } = path.parse(safe);
    for (let n = 1; ; n++) {
      const file = path.resolve(dir, n === 1 ? safe : `${name}-${n}${ext}`);
      try {
        fs.writeFileSync(file, attachment.data, { flag: 'wx' });
        return file;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  });
}

/** The event as JSON can carry it: each attachment's name, type, size and where it was written, not its bytes. */
export function describedAttachments(event: AgentEvent, written: readonly string[] = []): AgentEvent | Record<string, unknown> {
  if ((event.type !== 'observation' && event.type !== 'answer') || !event.attachments) return event;
  const fields: Record<string, unknown> = { ...event };
  return {
    ...fields,
    attachments: event.attachments.map((a, i) => ({ name: a.name, contentType: a.contentType, bytes: a.data.byteLength, ...(written[i] ? { path: written[i] } : {}) })),
  };
}
