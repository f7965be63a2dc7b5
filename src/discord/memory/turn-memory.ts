/**
 * What a turn calls of memory, in three small hookups the turn pipeline makes (run-turn.ts and
 * save-exchange.ts): the memory block of its instructions, the context its tools need (whom it answers,
 * their own words, where to show a stored note), and indexing its exchange for past-thread search.
 * Whether each memory is on in the place is the rules object's call (`rules.at(scope).memory()`).
 */
import { ChannelType } from 'discord.js';
import type { RunInput } from '../../agent/engine.js';
import type { DocumentPresence } from '../../knowledge/document-presence.js';
import { exchangeText, type ExchangeMessage, type ThreadIndex } from '../../knowledge/thread-index/index.js';
import type { Logger } from '../../logger.js';
import type { RunScope } from '../../policy/index.js';
import type { Author, MemberMemoryStore } from '../../state/index.js';
import type { TurnTarget } from '../posting/target.js';
import type { Rules } from '../rules/rules.js';
import { memoryBlock, type OwnerNotes } from './memory-block.js';
import { memoryNotifier } from './memory-notices.js';

/** A person's message in the turn, as memory needs it. */
export interface AskedMessage {
  author: Author;
  /** What they typed (not the message they asked about, not their files). */
  text: string;
}

export interface TurnMemory {
  /**
   * The memory block for a turn answering `askers` (one member: their notes; several: only notes their
   * owners shared), or undefined (memory off here, no notes, outside a server, storage failing).
   */
  block(input: { scope: RunScope; askers: readonly Author[]; question: string }): Promise<string | undefined>;
  /** What the engine run gets for memory tools: the askers with their own words, and where stored notes are shown. */
  runInput(input: { scope: RunScope; messages: readonly AskedMessage[]; target: TurnTarget; beforePosting(): Promise<void> }): Pick<RunInput, 'askers' | 'notify'>;
  /** Indexes a saved exchange for past-thread search; undefined where nothing is indexed (no index, a DM, a private thread, search off). */
  indexer(input: { scope: RunScope; target: TurnTarget }): ((messages: readonly ExchangeMessage[]) => Promise<void>) | undefined;
}

export interface TurnMemoryDeps {
  store: Pick<MemberMemoryStore, 'list'>;
  /** Past-thread search, when the knowledge index's database is there; with the "has threads" cache to refresh. */
  threads?: { index: Pick<ThreadIndex, 'add'>; presence: Pick<DocumentPresence, 'forget'> };
  rules: Pick<Rules, 'at'>;
  /** MEMORY_TOKEN_BUDGET: most tokens the block may take. */
  tokenBudget: number;
  countTokens(text: string): number;
  logger: Pick<Logger, 'warn'>;
  now: () => Date;
}

/** Each person once, in the order they first spoke. */
function distinct(authors: readonly Author[]): Author[] {
  return [...new Map(authors.map((a) => [a.id, a])).values()];
}

export function createTurnMemory(deps: TurnMemoryDeps): TurnMemory {
  return {
    async block({ scope, askers, question }) {
      const { guildId } = scope;
      if (!guildId) return undefined;
      try {
        if (!(await deps.rules.at(scope).memory()).members) return undefined;
        const people = distinct(askers);
        const team = people.length > 1;
        const notes: OwnerNotes[] = await Promise.all(people.map(async (owner) => {
          const entries = await deps.store.list(guildId, owner.id);
          // A team turn's answer is read by all of them: only what each owner chose to share.
          return { owner, entries: team ? entries.filter((e) => e.shared) : entries };
        }));
        return memoryBlock(notes, question, deps.tokenBudget, deps.countTokens);
      } catch (error) {
        deps.logger.warn({ err: error, guildId }, 'could not read member memory; answering without it');
        return undefined;
      }
    },

    runInput({ scope, messages, target, beforePosting }) {
      const people = distinct(messages.map((m) => m.author));
      const askers = people.map((p) => ({ id: p.id, name: p.name, words: messages.filter((m) => m.author.id === p.id).map((m) => m.text).join('\n') }));
      if (!scope.guildId) return { askers };
      return { askers, notify: memoryNotifier({ target, names: new Map(people.map((p) => [p.id, p.name])), beforePosting, logger: deps.logger }) };
    },

    indexer({ scope, target }) {
      const { guildId, channelId } = scope;
      const threadId = target.conversationKey;
      const threads = deps.threads;
      if (!threads || !guildId || !threadId) return undefined;
      const thread = target.client.channels.cache.get(threadId);
      // A private thread is read only by its members: what was said there is never offered elsewhere.
      if (thread?.type === ChannelType.PrivateThread) return undefined;
      return async (messages) => {
        try {
          if (!(await deps.rules.at(scope).memory()).threads) return;
          const text = exchangeText(messages);
          if (!text) return;
          const title = thread && 'name' in thread && thread.name ? thread.name : text.split('\n')[0]!.slice(0, 100);
          await threads.index.add({ guildId, channelId, threadId, title, link: `https://discord.com/channels/${guildId}/${threadId}`, text, at: deps.now() });
          threads.presence.forget(guildId);
        } catch (error) {
          deps.logger.warn({ err: error, guildId, threadId }, 'could not index the exchange for past-thread search');
        }
      };
    },
  };
}
