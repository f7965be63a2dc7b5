/**
 * Mention syntax rendered as plain words, for text the bot writes where Discord would show it as a
 * mention or where it reads as a ping: a thread name made from a question. `@everyone <@&id>` pings
 * nobody in a thread name, but reads as if it did. Names come from the guild's cache when it has them
 * (cheap, no request), otherwise a neutral word stands in. And what every message the bot posts says
 * of mentions: none pings.
 */

/** Never ping anyone, whatever the model writes (`@everyone`, role or user mentions). */
export const NO_MENTIONS = { parse: [] as never[], repliedUser: false };

/** Names for ids, where known (a lookup in the guild's cache; undefined when not cached). */
export interface MentionNames {
  user(id: string): string | undefined;
  role(id: string): string | undefined;
  channel(id: string): string | undefined;
}

/** Mention syntax Discord reads in message text: members, roles, channels, slash commands. */
const MENTION = /<(@!?|@&|#)(\d+)>|<\/([-_\p{L}\p{N} ]{1,98}):\d+>/gu;
/** `@everyone` and `@here`, which Discord reads anywhere in a message. */
const MASS_MENTION = /@(everyone|here)\b/g;

/** `text` with every mention written as a plain word: `everyone`, `@Alice` (or `@user`), `@Moderators` (or `@role`), `#general` (or `#channel`). */
export function plainMentions(text: string, names: MentionNames): string {
  // A name may itself start with @ or # (the @everyone role is called "@everyone"): one sign is enough.
  const named = (name: string | undefined, fallback: string) => (name?.replace(/^[@#]+/, '').trim() || fallback);
  const words = text.replace(MENTION, (_whole, kind: string | undefined, id: string | undefined, command: string | undefined) => {
    if (command !== undefined) return `/${command}`;
    if (kind === '#') return `#${named(names.channel(id!), 'channel')}`;
    if (kind === '@&') return `@${named(names.role(id!), 'role')}`;
    return `@${named(names.user(id!), 'user')}`;
  });
  // Last, so a name that reads "@everyone" is rendered as a word too.
  return words.replace(MASS_MENTION, '$1');
}

/** No names known: every mention gets its neutral word. */
export const NO_NAMES: MentionNames = { user: () => undefined, role: () => undefined, channel: () => undefined };
