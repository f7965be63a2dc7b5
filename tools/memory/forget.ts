/**
 * `forget`: remove one of the notes of the member the turn answers, by its id (`#k3f9a2`, as the memory
 * block lists them) or by words that match exactly one. Only that member's own notes can be reached; a
 * call their own words did not ask for (a page saying "forget everything") waits for their approval.
 */
import { z } from 'zod';
import { defineTool, type Asker, type ToolContext } from '../../src/agent/tool.js';
import type { MemberMemoryStore, MemoryEntry } from '../../src/state/member-memory/index.js';
import { asksToForget, ownerOf } from './own-words.js';
import { TEXT_CAPS } from '../../src/agent/text-caps.js';

const parameters = z.object({
  entry: z.string().min(1).max(300).describe('Its id (e.g. "#k3f9a2") or words from it.'),
  member: z.string().max(100).optional().describe('Whose note, by name, if several people are asking.'),
});
type Args = z.infer<typeof parameters>;

function decide(args: Args, ctx: Pick<ToolContext, 'askers' | 'collection'>): { owner: Asker; asked: boolean } | { error: string } {
  const askers = ctx.askers ?? [];
  if (!ctx.collection || askers.length === 0) return { error: 'Memory belongs to the members of a server, and this run answers nobody in one.' };
  const owner = ownerOf(askers, args.member, (a) => (asksToForget(a) ? 1 : 0));
  if ('error' in owner) return owner;
  return { owner, asked: asksToForget(owner) };
}

/** The entries `wanted` names: the one with that id, else those whose text holds those words. */
function matching(entries: readonly MemoryEntry[], wanted: string): MemoryEntry[] {
  const id = wanted.trim().replace(/^#/, '');
  const byId = entries.filter((e) => e.id === id);
  if (byId.length) return byId;
  const needle = wanted.trim().toLowerCase();
  return entries.filter((e) => e.text.toLowerCase().includes(needle));
}

/** The `forget` tool over the member memory store. */
export function createForgetTool(memory: Pick<MemberMemoryStore, 'list' | 'forget'>) {
  return defineTool({
    name: 'forget',
    description: 'Remove a note kept for the person you answer, when they ask you to forget it.',
    parameters,
    textParameter: 'entry',
    aliases: ['forget_memory', 'unremember'],
    examples: ['#k3f9a2', 'Fly.io'],
    needsApproval(args, ctx) {
      const decided = decide(args, ctx);
      if ('error' in decided || decided.asked) return undefined;
      return { reason: `${decided.owner.name}'s own words in this turn did not ask me to forget anything`, approvers: [{ id: decided.owner.id, name: decided.owner.name }] };
    },
    async run(args, ctx) {
      const decided = decide(args, ctx);
      if ('error' in decided) return `Error: ${decided.error}`;
      const { owner, asked } = decided;
      if (!asked && ctx.approvedBy !== owner.id) return `Not forgotten: ${owner.name} did not ask for it, and only ${owner.name} can approve it.`;
      const found = matching(await memory.list(ctx.collection!, owner.id), args.entry);
      if (found.length === 0) return `${owner.name} has no note matching "${args.entry.slice(0, TEXT_CAPS.echoShort)}". Their notes are listed with their ids in your instructions.`;
      if (found.length > 1) return `Several of ${owner.name}'s notes match; give one id: ${found.map((e) => `#${e.id} (${e.text.slice(0, TEXT_CAPS.notePreview)})`).join('; ')}.`;
      const gone = await memory.forget(ctx.collection!, owner.id, found[0]!.id);
      return gone ? `Forgotten for ${owner.name} (#${gone.id}): ${gone.text}` : `That note (#${found[0]!.id}) was already gone.`;
    },
  });
}
