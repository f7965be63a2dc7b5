/**
 * Interaction and command records: what a user's interaction looked like, how and when the bot
 * answered it, and the commands (and admin overwrites) registered for the app.
 */

/** One POST to /interactions/:id/:token/callback, accepted or not. */
export interface CallbackRecord {
  type: number;
  data: unknown;
  /** performance.now() when the request arrived. */
  at: number;
  /** Milliseconds from INTERACTION_CREATE leaving the fake to this callback arriving. */
  latencyMs: number;
  status: number;
  errorCode: number | null;
}

export interface FakeInteraction {
  id: string;
  token: string;
  /** 2 application command, 3 message component, 4 autocomplete, 5 modal submit. */
  type: number;
  /** For type 2: 1 chat input, 2 user, 3 message command. */
  commandType: number | null;
  /** Interaction context: 0 guild, 1 DM with the bot. */
  context: 0 | 1;
  commandName: string | null;
  customId: string | null;
  options: unknown[];
  channelId: string;
  /** Null for DMs. */
  guildId: string | null;
  userId: string;
  /** For components: the message the component is on. */
  messageId: string | null;
  /** performance.now() when the INTERACTION_CREATE frame was written. */
  dispatchedAt: number;
  acknowledged: boolean;
  ackType: number | null;
  ackLatencyMs: number | null;
  /** performance.now() when the accepted acknowledgement arrived. */
  ackedAt: number | null;
  /** Set when the acknowledgement deadline passed without a callback. */
  expired: boolean;
  /** Whether the response (reply or deferral) is ephemeral: only the invoking user sees it. */
  ephemeral: boolean;
  /** Every POST to the callback endpoint, accepted or refused, with `at` and `latencyMs`. */
  callbacks: CallbackRecord[];
  originalMessageId: string | null;
  followupIds: string[];
  autocompleteChoices: unknown[] | null;
  /** The modal shown with callback type 9 (custom_id, title, components); undefined if none. */
  modal: unknown;
  /** For modal submits: the interaction whose modal was submitted. */
  modalOf?: string;
}

export interface FakeCommand {
  id: string;
  applicationId: string;
  guildId: string | null;
  name: string;
  type: number;
  description: string;
  raw: Record<string, unknown>;
}

/**
 * An application command permission overwrite, as a server admin sets it in Server Settings >
 * Integrations: type 1 role, 2 user, 3 channel; `id` may be the guild id (@everyone) or guild id - 1
 * (all channels).
 */
export interface CommandPermission {
  id: string;
  type: 1 | 2 | 3;
  permission: boolean;
}

