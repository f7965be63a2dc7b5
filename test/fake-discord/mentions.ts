/**
 * Who a message actually pings, by Discord's rules: mentions in the content, filtered by
 * `allowed_mentions`, by role mentionability and by Mention Everyone. Without `allowed_mentions` a
 * regular message parses every type, but interaction responses, follow-ups and webhooks parse only
 * users (docs/resources/message.mdx, Allowed Mentions Reference; discord-api-docs PR #7629).
 */
import type { Pings } from './records.js';

/** `message`: a channel message (or a user's); `webhook`: an interaction response, follow-up or webhook. */
export type MentionSource = 'message' | 'webhook';

export interface MentionRules {
  /** The author may ping @everyone/@here and any role. */
  canMentionEveryone: boolean;
  roleMentionable: (roleId: string) => boolean;
  userExists: (userId: string) => boolean;
  /** Author of the message replied to, if any. */
  repliedUserId?: string | null;
  source: MentionSource;
}

interface AllowedMentions {
  parse?: unknown;
  users?: unknown;
  roles?: unknown;
  replied_user?: unknown;
}

export function mentionedIds(content: string): { users: string[]; roles: string[]; everyone: boolean } {
  const users = [...content.matchAll(/<@!?(\d{17,20})>/g)].map((m) => m[1] as string);
  const roles = [...content.matchAll(/<@&(\d{17,20})>/g)].map((m) => m[1] as string);
  return { users: unique(users), roles: unique(roles), everyone: /@(everyone|here)\b/.test(content) };
}

export function resolvePings(content: string, allowed: unknown, rules: MentionRules): Pings {
  const found = mentionedIds(content);
  const a = (allowed && typeof allowed === 'object' ? allowed : undefined) as AllowedMentions | undefined;
  const defaults = rules.source === 'webhook' ? ['users'] : ['users', 'roles', 'everyone'];
  const parse = a ? (Array.isArray(a.parse) ? a.parse.map(String) : []) : defaults;
  const allowUsers = new Set(a && Array.isArray(a.users) ? a.users.map(String) : []);
  const allowRoles = new Set(a && Array.isArray(a.roles) ? a.roles.map(String) : []);
  const users = found.users.filter((id) => rules.userExists(id) && (parse.includes('users') || allowUsers.has(id)));
  const roles = found.roles.filter(
    (id) => (parse.includes('roles') || allowRoles.has(id)) && (rules.canMentionEveryone || rules.roleMentionable(id)),
  );
  const replied = rules.repliedUserId;
  if (replied && (!a || a.replied_user === true) && !users.includes(replied)) users.push(replied);
  return { users, roles, everyone: found.everyone && parse.includes('everyone') && rules.canMentionEveryone };
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
