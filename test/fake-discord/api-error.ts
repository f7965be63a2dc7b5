/**
 * Discord's error responses: HTTP status plus the JSON body `{ message, code }` (and `errors` for
 * invalid form bodies), which discord.js turns into a DiscordAPIError with the same code.
 */
type Json = Record<string, unknown>;

export class ApiError extends Error {
  /** False for errors whose body carries no `code` (most 429s: the docs mark `code` as "for some limits"). */
  withCode = true;

  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: Json,
    readonly headers: Record<string, string> = {},
    readonly extra: Json = {},
  ) {
    super(message);
  }

  body(): Json {
    return { message: this.message, ...(this.withCode ? { code: this.code } : {}), ...(this.errors ? { errors: this.errors } : {}), ...this.extra };
  }
}

export const errors = {
  unauthorized: () => new ApiError(401, 0, '401: Unauthorized'),
  notFound: () => new ApiError(404, 0, '404: Not Found'),
  unknownChannel: () => new ApiError(404, 10003, 'Unknown Channel'),
  unknownGuild: () => new ApiError(404, 10004, 'Unknown Guild'),
  unknownMember: () => new ApiError(404, 10007, 'Unknown Member'),
  unknownMessage: () => new ApiError(404, 10008, 'Unknown Message'),
  unknownUser: () => new ApiError(404, 10013, 'Unknown User'),
  unknownWebhook: () => new ApiError(404, 10015, 'Unknown Webhook'),
  unknownInteraction: () => new ApiError(404, 10062, 'Unknown interaction'),
  unknownCommand: () => new ApiError(404, 10063, 'Unknown application command'),
  maxCommands: (max: number) => new ApiError(400, 30032, `Maximum number of application commands reached (${max})`),
  requestTooLarge: () => new ApiError(413, 40005, 'Request entity too large'),
  alreadyAcknowledged: () => new ApiError(400, 40060, 'Interaction has already been acknowledged.'),
  missingAccess: () => new ApiError(403, 50001, 'Missing Access'),
  cannotEditOthers: () => new ApiError(403, 50005, 'Cannot edit a message authored by another user'),
  emptyMessage: () => new ApiError(400, 50006, 'Cannot send an empty message'),
  cannotMessageUser: () => new ApiError(403, 50007, 'Cannot send messages to this user'),
  missingPermissions: () => new ApiError(403, 50013, 'Missing Permissions'),
  wrongChannelType: () => new ApiError(400, 50024, 'Cannot execute action on this channel type'),
  invalidWebhookToken: () => new ApiError(401, 50027, 'Invalid Webhook Token'),
  archivedThread: () => new ApiError(400, 50083, 'Thread is archived'),
  /**
   * Sending into a forum or media channel itself. The docs list 40058 "Cannot send a message in a
   * forum channel", but the live API answers 400 50008 (grafana-oncall PR #26, checked against
   * Discord) and uses 40058 for a post whose first message is not there yet (below).
   */
  nonTextChannel: () => new ApiError(400, 50008, 'Cannot send messages in a non-text channel'),
  /** A forum post whose author's first message is still being sent (reactibot #478, pycord #1637: 403). */
  postNotStarted: () => new ApiError(403, 40058, 'Cannot message this thread until after the post author has sent an initial message.'),
  /** A forum post without a tag where REQUIRE_TAG is set (opcodes-and-status-codes.mdx; status not documented). */
  tagRequired: () => new ApiError(400, 40067, 'A tag is required to create a forum post in this channel'),
  /** An applied tag the forum does not have (opcodes-and-status-codes.mdx, 10087; status as for other Unknown errors). */
  unknownTag: () => new ApiError(404, 10087, 'Unknown Tag'),
  invalidJson: () => new ApiError(400, 50109, 'The request body contains invalid JSON.'),
  threadAlreadyCreated: () => new ApiError(400, 160004, 'A thread has already been created for this message'),
  // The docs list code 160005 without a status; discord.py users report it as 403 Forbidden, and
  // discord.js only needs the code (a DiscordAPIError either way).
  threadLocked: () => new ApiError(403, 160005, 'Thread is locked'),
  /** A reply to a message that does not exist (message.mdx: "The referenced message must exist"). */
  unknownReference: () => {
    const errs = new FormErrors();
    errs.add(['message_reference'], 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message');
    return errs.error();
  },
};

/** Collects field errors in Discord's nested `{ field: { _errors: [...] } }` shape → 400 code 50035. */
export class FormErrors {
  readonly #tree: Json = {};
  #count = 0;

  add(path: Array<string | number>, code: string, message: string): void {
    let node = this.#tree;
    for (const key of path) {
      const k = String(key);
      node[k] ??= {};
      node = node[k] as Json;
    }
    const list = (node._errors ??= []) as Json[];
    list.push({ code, message });
    this.#count += 1;
  }

  get empty(): boolean {
    return this.#count === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw this.error();
  }

  error(): ApiError {
    return new ApiError(400, 50035, 'Invalid Form Body', this.#tree);
  }
}
