/**
 * The `search_knowledge` tool: the server's own documents (FAQ, rules, guides), searched by words (and
 * by meaning where EMBEDDING_MODEL is set) and cited by title, page and link. The knowledge base is passed in; the collection is the run's
 * (`ctx.collection`, the server), so a run can only ever search the documents of the place it is in.
 * Passages are untrusted text: the knowledge base cleans them, and the engine cleans all tool output.
 */
import { z } from 'zod';
import { ownNumbers } from '../src/agent/citations.js';
import { defineTool, type Source, type ToolDefinition } from '../src/agent/tool.js';
import { passagePlace } from '../src/knowledge/passage-place.js';
import type { KnowledgeBase, SearchHit } from '../src/knowledge/types.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

/** Room for the passages within the default 4,000-character tool output cap. */
const OUTPUT_BUDGET = 3_400;

const parameters = z.object({
  query: z.string().min(1).max(10_000).describe('Words to look for, e.g. "reset password" or "event schedule"; a short question also works.'),
  limit: z.number().int().min(1).max(10).default(5).describe('How many passages to return (1-10, default 5).'),
});

/** The `search_knowledge` tool over `knowledge` (only `search` and `hasDocuments` are used). */
export function createSearchKnowledgeTool(knowledge: Pick<KnowledgeBase, 'search' | 'hasDocuments' | 'meaning'>): ToolDefinition<z.infer<typeof parameters>> {
  return defineTool({
    name: 'search_knowledge',
    description:
      "Search this server's own documents (its FAQ, rules, guides and notes added by moderators) and return " +
      'the best-matching passages with their document title, section and source link. Prefer it over the ' +
      'web for anything about this server or its community; cite the links it gives. ' +
      (knowledge.meaning ? 'It matches meaning as well as words: if nothing is found, try other words.' : 'It matches words, not meaning: if nothing is found, try other or fewer words.'),
    parameters,
    textParameter: 'query',
    aliases: ['search_docs', 'knowledge', 'kb', 'search_kb', 'faq'],
    examples: ['how to apply for the moderator role', 'server rules about spoilers'],
    async run({ query, limit }, ctx) {
      const collection = ctx.collection;
      if (!collection) {
        return 'There is no knowledge base here: documents belong to a server, and this run is not in one. Answer without it.';
      }
      // What was said in a channel is found only by those who can read that channel.
      const hits = await knowledge.search(collection, query, { limit, snippetChars: snippetBudget(limit), canView: ctx.canViewChannel });
      if (hits.length === 0) {
        if (!(await knowledge.hasDocuments(collection))) {
          return "This server's knowledge base has no documents yet (moderators add them with /kb add). Answer without it.";
        }
        const how = knowledge.meaning ? 'words and meaning' : 'words, not meaning';
        return `No passage of this server's documents matches "${query.slice(0, TEXT_CAPS.echo)}". Try other or fewer words (the search matches ${how}).`;
      }
      const sources = hits.map(sourceOf);
      // Numbered as the run numbers its sources (one number per document), so they never clash with a web search's.
      const cite = ctx.cite ?? ownNumbers();
      return { output: formatHits(hits, sources.map(cite)), sources };
    },
  });
}

/** Characters per snippet so that `limit` passages fit the output budget. */
function snippetBudget(limit: number): number {
  return Math.max(200, Math.min(900, Math.floor(OUTPUT_BUDGET / limit) - 120));
}

function formatHits(hits: SearchHit[], numbers: readonly number[]): string {
  const blocks = hits.map((hit, i) => {
    const where = passagePlace(hit);
    const cite = hit.link ? `Link: ${hit.link}` : 'No link (a document added from a file).';
    return `[${numbers[i]}] ${where}\n${cite}\n${hit.snippet}`;
  });
  return `${hits.length} passage${hits.length === 1 ? '' : 's'} from this server's documents, best first:\n\n${blocks.join('\n\n')}`;
}

/**
 * A passage's source: its document. A linked one by its link, titled with the section found (the first
 * passage of a document names it); one added from a file by its title, with no link. A page of a PDF
 * is named too (`Rulebook, p. 12`), so the answer's Sources line says where to look.
 */
function sourceOf(hit: SearchHit): Source {
  if (!hit.link) return { title: passagePlace(hit, []) };
  return { title: passagePlace(hit, hit.headings.slice(-1)), url: hit.link };
}
