/**
 * Reasoning models served without a reasoning parser (llama.cpp `--reasoning-format none`, vLLM
 * without `--reasoning-parser`, some Ollama templates) write their thinking inline as
 * `<think>…</think>` in the content. That text is reasoning, never answer: this splits a streamed
 * content into the two, also when a tag is split across chunks (`<thi` + `nk>`).
 */
import { heldBackLength } from './stop-cutter.js';

const OPEN = '<think>';
const CLOSE = '</think>';

/** A stretch of streamed text and whether it was answer or reasoning. */
export interface TextPiece {
  kind: 'content' | 'reasoning';
  text: string;
}

/** Splits streamed content into answer text and `<think>` reasoning, piece by piece. */
export class ThinkSplitter {
  private inside = false;
  private pending = '';
  /** The answer usually starts with a blank line after `</think>`; it is layout, not content. */
  private trimLeading = false;

  /** Split the next piece of content; a tag that may be incomplete is held back. */
  push(piece: string): TextPiece[] {
    const out: TextPiece[] = [];
    let text = this.pending + piece;
    this.pending = '';
    while (text) {
      const tag = this.inside ? CLOSE : OPEN;
      const at = text.indexOf(tag);
      if (at >= 0) {
        this.emit(out, text.slice(0, at));
        text = text.slice(at + tag.length);
        this.inside = !this.inside;
        if (!this.inside) this.trimLeading = true;
        continue;
      }
      const keep = heldBackLength(text, [tag]);
      this.emit(out, text.slice(0, text.length - keep));
      this.pending = text.slice(text.length - keep);
      break;
    }
    return out;
  }

  /** At the end of the reply: a held-back fragment was not a tag after all. */
  flush(): TextPiece[] {
    const out: TextPiece[] = [];
    this.emit(out, this.pending);
    this.pending = '';
    return out;
  }

  private emit(out: TextPiece[], text: string): void {
    if (!text) return;
    if (this.inside) {
      out.push({ kind: 'reasoning', text });
      return;
    }
    if (this.trimLeading) {
      text = text.replace(/^\s+/, '');
      if (!text) return;
      this.trimLeading = false;
    }
    out.push({ kind: 'content', text });
  }
}

/**
 * Some chat templates open `<think>` in the prompt itself, so the reply holds only the closing tag:
 * `reasoning…</think>answer`. The streamed deltas cannot know that in advance; the finished reply
 * moves the text before such an orphan closing tag to the reasoning.
 */
export function splitOrphanClose(content: string): { reasoning?: string; content: string } {
  const at = content.indexOf(CLOSE);
  if (at < 0 || content.lastIndexOf(OPEN, at) >= 0) return { content };
  return { reasoning: content.slice(0, at).trim(), content: content.slice(at + CLOSE.length).replace(/^\s+/, '') };
}
