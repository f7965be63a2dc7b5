/**
 * Token counts with the real tokenizer of the model family (gpt-tokenizer, encodings bundled: nothing is
 * fetched). Each message is counted once: a WeakMap remembers the count per message object, and a
 * bounded cache keyed by the message's text catches the same message loaded again as a new object.
 */
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { imageUrlTokens } from '../../agent/image-size.js';
import type { ChatMessage, ContentPart } from '../../agent/types.js';

/** The bundled gpt-tokenizer encodings this project counts with. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/**
 * Framing tokens: OpenAI's chat format wraps every message in a few special tokens and primes the reply
 * with three more. The framing of tool calls is not published; these keep counts within a few tokens.
 */
export const MESSAGE_OVERHEAD = 3;
export const NAME_OVERHEAD = 1;
export const TOOL_CALL_OVERHEAD = 3;
export const REPLY_PRIMING = 3;

const ENCODERS = { o200k_base: o200k, cl100k_base: cl100k } as const;

/**
 * The encoding a model name most likely uses. gpt-3.5 and gpt-4 (not 4o/4.1/4.5) use cl100k_base;
 * everything else, including models of other vendors served behind an OpenAI-compatible API whose
 * tokenizers differ anyway, is counted with o200k_base.
 */
export function encodingForModel(model: string): EncodingName {
  const name = model.toLowerCase().split('/').pop() ?? '';
  if (/^(gpt-3\.5|gpt-35|gpt-4(?![o.\d])|text-embedding-(3|ada))/.test(name)) return 'cl100k_base';
  return 'o200k_base';
}

/** Options of a TokenCounter. */
export interface TokenCounterOptions {
  /** Upper bound on the text held by the content-keyed cache, in characters. */
  maxCachedChars?: number;
}

/** Counts tokens of text and chat messages for one encoding, caching per message. */
export class TokenCounter {
  private readonly byObject = new WeakMap<object, number>();
  private readonly byText = new Map<string, number>();
  private readonly shortenedCache = new Map<string, string>();
  private cachedChars = 0;
  private readonly maxCachedChars: number;
  private readonly encoder: (typeof ENCODERS)[EncodingName];
  /** Messages actually tokenized (cache misses), for tests and the bench. */
  misses = 0;

  constructor(
    readonly encoding: EncodingName,
    options: TokenCounterOptions = {},
  ) {
    this.encoder = ENCODERS[encoding];
    this.maxCachedChars = options.maxCachedChars ?? 16_000_000;
  }

  /** Tokens of a plain string. */
  text(text: string): number {
    return this.encoder.countTokens(text);
  }

  /** Tokens one message adds to a chat request, framing included. Cached. */
  message(message: ChatMessage): number {
    const known = this.byObject.get(message);
    if (known !== undefined) return known;
    const fingerprint = fingerprintOf(message);
    let count = this.byText.get(fingerprint);
    if (count === undefined) {
      count = this.countUncached(message);
      this.misses++;
      this.remember(fingerprint, count);
    }
    this.byObject.set(message, count);
    return count;
  }

  /**
   * `text` cut to its first `maxTokens` tokens, with a note saying how much was cut. Unchanged when it
   * already fits. Cached, so trimming an unchanged history again costs no tokenizing.
   */
  shorten(text: string, maxTokens: number): string {
    const cacheKey = `${maxTokens}\u0000${text}`;
    const cached = this.shortenedCache.get(cacheKey);
    if (cached !== undefined) return cached;
    const tokens = this.encoder.encode(text);
    const result =
      tokens.length <= maxTokens
        ? text
        : `${this.encoder.decode(tokens.slice(0, maxTokens)).replace(/\uFFFD+$/, '')}\n[… shortened: ${tokens.length - maxTokens} of ${tokens.length} tokens left out]`;
    if (this.shortenedCache.size > 10_000) this.shortenedCache.clear();
    this.shortenedCache.set(cacheKey, result);
    return result;
  }

  private countUncached(message: ChatMessage): number {
    let count = MESSAGE_OVERHEAD;
    if (typeof message.content === 'string') count += this.text(message.content);
    else if (message.content) {
      // Each image counts what its size costs (read from its header: image-size.ts); text parts as their text.
      for (const part of message.content) count += part.type === 'text' ? this.text(part.text) : imageUrlTokens(part.image_url.url);
    }
    if (message.role === 'user' && message.name) count += NAME_OVERHEAD + this.text(message.name);
    if (message.role === 'assistant' && message.tool_calls) {
      for (const call of message.tool_calls) {
        count += TOOL_CALL_OVERHEAD + this.text(call.function.name) + this.text(call.function.arguments);
      }
    }
    return count;
  }

  private remember(fingerprint: string, count: number): void {
    this.byText.set(fingerprint, count);
    this.cachedChars += fingerprint.length;
    // Map iteration is insertion order, so the first keys are the oldest: drop those until under bound.
    for (const key of this.byText.keys()) {
      if (this.cachedChars <= this.maxCachedChars) break;
      this.byText.delete(key);
      this.cachedChars -= key.length;
    }
  }
}

function fingerprintOf(message: ChatMessage): string {
  switch (message.role) {
    case 'user':
      return `u\u0000${message.name ?? ''}\u0000${typeof message.content === 'string' ? `\u0000${message.content}` : `\u0001${partsFingerprint(message.content)}`}`;
    case 'assistant':
      return `a\u0000${message.tool_calls ? JSON.stringify(message.tool_calls) : ''}\u0000${message.content ?? ''}`;
    case 'tool':
      return `t\u0000${message.content}`;
    case 'system':
      return `s\u0000${message.content}`;
  }
}

/**
 * Parts as a cache key: text as it is, an image as its token cost (read from its header), so its bytes
 * (a data URL of up to megabytes) need not be kept in the cache's key.
 */
function partsFingerprint(parts: readonly ContentPart[]): string {
  return JSON.stringify(parts.map((p) => (p.type === 'text' ? p.text : imageUrlTokens(p.image_url.url))));
}

/**
 * Token counters by model, each made on first use and kept by whoever owns this function (the
 * composition root makes one for the process), so counts cached for a model are reused across turns.
 */
export function tokenCounters(): (model: string) => TokenCounter {
  const byEncoding = new Map<EncodingName, TokenCounter>();
  return (model) => {
    const encoding = encodingForModel(model);
    let counter = byEncoding.get(encoding);
    if (!counter) {
      counter = new TokenCounter(encoding);
      byEncoding.set(encoding, counter);
    }
    return counter;
  };
}
