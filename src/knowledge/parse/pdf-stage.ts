/**
 * The shape every decoding stage of the PDF inflate check has (pdf-decoders.ts, pdf-lzw.ts): fed a
 * stream's encoded bytes a slice at a time, it hands on what they decode to and keeps none of it.
 */

/** One decoding stage: fed encoded bytes, it passes decoded bytes on; `done` once its data has ended. */
export interface Stage {
  push(chunk: Uint8Array): void;
  readonly done: boolean;
  /** No more input: a stage that decodes only whole inputs (Brotli) does it now. */
  end?(): void;
}

/** Where a stage hands its decoded bytes. */
export type Emit = (decoded: Uint8Array) => void;

/** What a filter's stage is built with: its /DecodeParms entries, and where a Brotli stage reports a size it would not decode. */
export interface StageParams {
  earlyChange?: number;
  /** Most bytes a whole-input decoder may produce before it stops and reports `over(limit)`. */
  limit: number;
  over: (bytes: number) => void;
}
