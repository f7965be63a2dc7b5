/**
 * The cached "has documents" answer behind offering search_knowledge: trusted for its TTL, forgotten at
 * once on add and remove, one lookup for concurrent misses, and never a stale answer stored over a change.
 */
import { describe, expect, it } from 'vitest';
import { createDocumentPresence, forgettingOnChange } from '../../src/knowledge/document-presence.js';
import { openKnowledgeBase } from '../../src/knowledge/index.js';

/** A hasDocuments that counts its calls and answers when the test says. */
function countingLookup(initial: Record<string, boolean> = {}) {
  const state = new Map(Object.entries(initial));
  const waiting: Array<() => void> = [];
  let held = false;
  const lookup = {
    calls: 0,
    hold() { held = true; },
    release() { held = false; for (const go of waiting.splice(0)) go(); },
    set(collection: string, value: boolean) { state.set(collection, value); },
    async hasDocuments(collection: string) {
      lookup.calls += 1;
      // Read when asked, answered later: what a query in flight during a write sees.
      const value = state.get(collection) ?? false;
      if (held) await new Promise<void>((resolve) => waiting.push(resolve));
      return value;
    },
  };
  return lookup;
}

describe('document presence', () => {
  it('answers from the cache within the TTL and asks again after it', async () => {
    let now = 0;
    const kb = countingLookup({ g1: true });
    const presence = createDocumentPresence(kb, { ttlMs: 1_000, clock: () => now });
    expect(await presence.has('g1')).toBe(true);
    for (let i = 0; i < 50; i += 1) expect(await presence.has('g1')).toBe(true);
    expect(kb.calls).toBe(1);
    kb.set('g1', false);
    now = 999;
    expect(await presence.has('g1')).toBe(true);
    now = 1_000;
    expect(await presence.has('g1')).toBe(false);
    expect(kb.calls).toBe(2);
  });

  it('keeps collections apart, and forget drops only the one named', async () => {
    const kb = countingLookup({ g1: true, g2: false });
    const presence = createDocumentPresence(kb);
    expect([await presence.has('g1'), await presence.has('g2')]).toEqual([true, false]);
    kb.set('g2', true);
    presence.forget('g2');
    expect([await presence.has('g1'), await presence.has('g2')]).toEqual([true, true]);
    expect(kb.calls).toBe(3);
  });

  it('shares one lookup among concurrent misses', async () => {
    const kb = countingLookup({ g1: true });
    const presence = createDocumentPresence(kb);
    kb.hold();
    const answers = Promise.all(Array.from({ length: 20 }, () => presence.has('g1')));
    kb.release();
    expect(await answers).toEqual(Array(20).fill(true));
    expect(kb.calls).toBe(1);
  });

  it('does not store an answer from a lookup that started before a change', async () => {
    const kb = countingLookup({ g1: false });
    const presence = createDocumentPresence(kb);
    kb.hold();
    const stale = presence.has('g1');
    kb.set('g1', true);
    presence.forget('g1');
    kb.release();
    expect(await stale).toBe(false);
    expect(await presence.has('g1')).toBe(true);
    expect(kb.calls).toBe(2);
  });

  it('passes a failed lookup on, and asks again next time', async () => {
    let fail = true;
    const presence = createDocumentPresence({ hasDocuments: async () => { if (fail) throw new Error('database down'); return true; } });
    await expect(presence.has('g1')).rejects.toThrow('database down');
    fail = false;
    expect(await presence.has('g1')).toBe(true);
  });

  it('forgets a collection when a document is added or removed through the wrapped knowledge base, even when the add is refused', async () => {
    const base = await openKnowledgeBase('memory:', { baseDir: process.cwd(), limits: { maxFileBytes: 1_000, maxBytes: 1_000 } });
    try {
      const presence = createDocumentPresence(base, { ttlMs: 60_000 });
      const kb = forgettingOnChange(base, presence);
      expect(await presence.has('g1')).toBe(false);
      const { document } = await kb.add('g1', { source: 'faq.md', format: 'markdown', content: '# FAQ\n\nRaid night is on Friday.' });
      expect(await presence.has('g1')).toBe(true);
      expect((await kb.search('g1', 'raid night'))[0]?.title).toBe('FAQ');
      await expect(kb.add('g1', { source: 'big.md', format: 'markdown', content: 'x'.repeat(2_000) })).rejects.toThrow(/at most/);
      await kb.remove('g1', document.id);
      expect(await presence.has('g1')).toBe(false);
      expect(kb.limits).toEqual(base.limits);
    } finally {
      await base.close();
    }
  });
});
