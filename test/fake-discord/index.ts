/** The fake Discord (REST v10 + gateway v10 on 127.0.0.1) for end-to-end tests with the real discord.js client. */
export { FakeDiscord, type FakeDefaults, type FakeDiscordOptions } from './fake-discord.js';
export { startClient, type StartClientOptions } from './client.js';
export { Intent } from './gateway.js';
export { Permission, type PermissionInput, type PermissionName } from './permissions.js';
export type { PermissionChange } from './world-admin.js';
export type { CommandPermissionChange } from './server-admin.js';
export type { MessageCommandInput, UserCommandInput } from './acting.js';
export type { ModalSubmitInput } from './modal-submit.js';
export type { AttachmentUpload, CommandOption, OptionValue } from './command-options.js';
export type { SlashCommandInput, AutocompleteInput, ComponentInput } from './user-actions.js';
export type { UserMessageInput } from './member-messages.js';
export type { ForumPostInput } from './conversations.js';
export type { CreatedPost } from './forum.js';
export type { SystemMessageInput, WebhookMessageInput } from './automated-messages.js';
export type { NewChannel, NewForumTag } from './world.js';
export type { WaitOptions } from './events.js';
export { ChannelKind, MessageFlag, MessageKind } from './records.js';
export type * from './records.js';
