/**
 * What a turn sends the model as the person's message: their text, the context it was asked about
 * (the message behind "Ask about this message"), and the files they attached, read for the model.
 */
import { cleanText } from '../../agent/clean-text.js';
import type { ContentPart } from '../../agent/types.js';
import { filesNotice, userContent, type AttachmentReader, type AttachmentRef } from '../files/attachments.js';

/** The parts of a request that become the person's message. */
export interface TurnInputRequest {
  /** The question, already cleaned by the admission. */
  text: string;
  /** Text the question is about, put after it (cleaned here). */
  context?: string;
  attachments?: readonly AttachmentRef[];
}

/** The message content, and a line for the thread about the files (when there were any). */
export async function turnInput(reader: AttachmentReader | undefined, request: TurnInputRequest, model: string): Promise<{ content: string | ContentPart[]; notice?: string }> {
  const text = request.context ? `${request.text}\n\n${cleanText(request.context).trim()}` : request.text;
  const attached = request.attachments ?? [];
  if (attached.length === 0) return { content: text };
  if (!reader) {
    // Nothing can read files here: the model still learns they were there.
    const names = attached.map((a) => a.name).join(', ');
    return { content: `${text}\n\n[attached files not read: ${names}]`, notice: `-# 📎 Files not read: ${names} (this bot reads no files)` };
  }
  const files = await reader.read(attached, model);
  return { content: userContent(text, files), notice: filesNotice(files) };
}
