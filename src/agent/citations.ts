/**
 * The sources of one run, each with the number the answer cites it by. A tool that shows numbered
 * results (`web_search`, `search_knowledge`) asks for its results' numbers here, so the numbers run on
 * across every call of the run: a second search starts where the first ended, and a source seen again
 * keeps its first number. The answer's Sources line lists them in that order, so `[3]` in the answer is
 * the third source listed under it.
 */
import type { Source } from './tool.js';

export class Citations {
  private readonly numbers = new Map<string, number>();
  private readonly sources: Source[] = [];

  /** The number of `source` in this run: the one it already has, or the next. */
  cite(source: Source): number {
    const key = source.url ?? `title:${source.title}`;
    const known = this.numbers.get(key);
    if (known !== undefined) return known;
    this.sources.push(source);
    this.numbers.set(key, this.sources.length);
    return this.sources.length;
  }

  /** Every source cited so far, the first as number 1. */
  list(): Source[] {
    return [...this.sources];
  }
}

/** Numbers for a tool called outside a run (no `ToolContext.cite`): its own, from 1. */
export function ownNumbers(): (source: Source) => number {
  const citations = new Citations();
  return (source) => citations.cite(source);
}
