/**
 * What run recovery does in Discord, straight over the REST API: the channels of a dead run may not
 * be in the new process's cache (threads are not), and a message id is all the journal kept.
 */
import { ButtonStyle, ComponentType, Routes, type Client } from 'discord.js';
import type { RecoveryActions } from './run-journal.js';
import { fitMessage, MESSAGE_LIMIT } from '../posting/split-message.js';
import { STOP_PREFIX } from '../posting/run-components.js';

const NO_MENTIONS = { parse: [] as never[] };

/** Recovery actions through a logged-in client's REST API. */
export function restRecoveryActions(client: Client): RecoveryActions {
  return {
    async disableStop(channelId, messageId, runId, keep) {
      const components = keep
        ? [{ type: ComponentType.ActionRow, components: [{ type: ComponentType.Button, style: ButtonStyle.Danger, label: 'Stop', custom_id: `${STOP_PREFIX}${runId}`, disabled: true }] }]
        : [];
      // Only the components change: an edit without `content` leaves the text as it is.
      await client.rest.patch(Routes.channelMessage(channelId, messageId), { body: { components } });
    },
    async appendNote(channelId, messageId, note) {
      const message = (await client.rest.get(Routes.channelMessage(channelId, messageId))) as { content?: string };
      // The note is what matters: the old text gives way to it if both do not fit.
      const content = message.content ? `${fitMessage(message.content, MESSAGE_LIMIT - note.length - 1)}\n${note}` : note;
      await client.rest.patch(Routes.channelMessage(channelId, messageId), { body: { content, allowed_mentions: NO_MENTIONS } });
    },
    async post(channelId, content) {
      await client.rest.post(Routes.channelMessages(channelId), { body: { content, allowed_mentions: NO_MENTIONS } });
    },
  };
}
