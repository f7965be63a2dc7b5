import { describe, expect, it } from 'vitest';
import { buildExport, exportMarkdown } from '../../src/discord/text/conversation-export.js';
import type { Conversation } from '../../src/state/index.js';

const meta = { threadName: 'T', exportedBy: 'Ann', botName: 'threadwise', now: new Date(Date.UTC(2026, 0, 2)) };

describe('the conversation export', () => {
  it('reads a text-protocol run into thought, action, observation and answer, and names images instead of embedding them', () => {
    const conversation: Conversation = {
      threadId: '1',
      version: 2,
      usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
      batches: [{ at: 1_000, messages: 4, usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } }],
      messages: [
        { role: 'user', author: { id: '9', name: 'Ann' }, at: 1_000, content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(5_000)}` } }] },
        { role: 'assistant', at: 1_001, content: 'Thought: I should look it up.\nAction: wikipedia: cats\nPAUSE' },
        { role: 'user', at: 1_002, content: 'Observation: Cats are small.\n\n[step 2 of 8]' },
        { role: 'assistant', at: 1_003, content: 'A cat ``` with fences.' },
      ],
    };
    const data = buildExport(conversation, meta);
    expect(data.exchanges[0]!.steps).toEqual([
      { kind: 'question', at: '1970-01-01T00:00:01.000Z', speaker: 'Ann', speakerId: '9', text: 'What is this?\n\n[image]' },
      { kind: 'thought', at: '1970-01-01T00:00:01.001Z', text: 'I should look it up.' },
      { kind: 'action', at: '1970-01-01T00:00:01.001Z', tool: 'wikipedia', input: 'cats' },
      { kind: 'observation', at: '1970-01-01T00:00:01.002Z', text: 'Cats are small.\n\n[step 2 of 8]' },
      { kind: 'answer', at: '1970-01-01T00:00:01.003Z', speaker: 'threadwise', text: 'A cat ``` with fences.' },
    ]);
    const markdown = exportMarkdown(data);
    expect(markdown).not.toContain('AAAA');
    // An observation's own backticks cannot close its block: the fence is longer.
    expect(exportMarkdown({ ...data, exchanges: [{ at: 'x', steps: [{ kind: 'observation', at: 'x', text: 'a ``` b' }] }] })).toContain('````\na ``` b\n````');
  });
});
