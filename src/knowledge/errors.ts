/** Refusals of the knowledge base: the input is wrong, not the system. */
import { ThreadwiseError } from '../errors.js';

/**
 * A document or request was refused (too big, over the collection's cap, binary or of an unknown type,
 * empty, a bad collection name, an address the fetcher may not read). The message is written for the
 * person who asked and says what to do; nothing was written.
 */
export class KnowledgeInputError extends ThreadwiseError {
  override name = 'KnowledgeInputError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('knowledge-input', message, options);
  }
}
