/**
 * The Forget button under a "Remembered for …" line: what pressing it does (its looks are in
 * posting/run-components.ts).
 * Only the note's owner may press it (a note is theirs to keep or drop; moderators remove notes with
 * `/settings memory-erase`); anyone else is told so privately and nothing changes.
 */
import { MessageFlags } from 'discord.js';
import type { MemberMemoryStore } from '../../state/index.js';
import { customIdRest, type ButtonEntry } from '../interaction-entry.js';
import { FORGET_PREFIX, forgetRow } from '../posting/run-components.js';
import { describeError } from '../../errors.js';

/** What the handler uses of the member memory (MemoryServices in services.ts has it). */
interface ForgetServices {
  turns: { memory: { store: Pick<MemberMemoryStore, 'forget'> } };
}

export const memoryForgetButton = {
  kind: 'button',
  prefix: FORGET_PREFIX,
  build: forgetRow,

  async handle(interaction, { turns: { memory } }) {
    const [ownerId, entryId] = customIdRest(memoryForgetButton, interaction.customId).split(':');
    if (!interaction.guildId || !ownerId || !entryId) {
      await interaction.reply({ content: 'This button does not belong to a note I know.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (interaction.user.id !== ownerId) {
      await interaction.reply({ content: 'Only the member this note belongs to can forget it. Your own notes: `/memory show`.', flags: MessageFlags.Ephemeral });
      return;
    }
    // Acknowledged before storage is touched (Discord allows 3 seconds); the line is then edited.
    await interaction.deferUpdate();
    let gone;
    try {
      gone = await memory.store.forget(interaction.guildId, ownerId, entryId);
    } catch (error) {
      await interaction.followUp({ content: `❌ I could not forget it (${describeError(error)}). Nothing was changed; try again in a moment.`, flags: MessageFlags.Ephemeral });
      return;
    }
    // The line loses its button and says what happened; its text goes too, since the note is gone.
    await interaction.editReply({ content: gone ? '-# 🧠 Forgotten: the owner removed this note.' : '-# 🧠 This note was already forgotten.', components: [] });
  },
} satisfies ButtonEntry<ForgetServices>;
