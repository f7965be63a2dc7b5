/**
 * The web console's sessions and sign-ins in progress, in the shared storage, so several console
 * processes (or a console beside the bot) see the same ones. Keys are hashes of what the browser holds
 * (a leaked store does not hand out sessions); records expire by Keyv's TTL: a session 12 hours after its
 * last use, a sign-in 10 minutes after it started. Each member's sessions are listed under their id, so
 * signing out ends every one of them at once.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Backend } from '../storage/registry.js';
import { guarded } from '../storage/storage-failure.js';

const SessionSchema = z.object({
  v: z.literal(1),
  userId: z.string(),
  /** The name shown in the console's header (the user's global name or username at sign-in). */
  name: z.string(),
  /** The servers the member listed at sign-in (the `guilds` scope): only where to look; rights are asked of Discord at every request. */
  guildIds: z.array(z.string()),
  createdAt: z.number(),
  /** Last request (epoch ms): the idle timeout counts from here. */
  seenAt: z.number(),
});

/** A signed-in member's session as stored. */
export type ConsoleSession = z.infer<typeof SessionSchema>;

const PendingSchema = z.object({ verifier: z.string(), createdAt: z.number() });

/** A sign-in started: the PKCE verifier kept on the server until Discord sends the member back. */
export type PendingSignIn = z.infer<typeof PendingSchema>;

export interface ConsoleSessionStore {
  /** Keep a new session under the browser's session id; `ttlMs` is the idle timeout. */
  create(id: string, session: ConsoleSession, ttlMs: number): Promise<void>;
  /** The session for a browser's id, if it exists and has not expired. */
  get(id: string): Promise<ConsoleSession | undefined>;
  /** Note a request (restarting the idle timeout). */
  touch(id: string, session: ConsoleSession, ttlMs: number): Promise<void>;
  /** End every session of a member (sign-out ends them everywhere); how many there were. */
  endAllOf(userId: string): Promise<number>;
  /** Keep a sign-in in progress under its `state`. */
  savePending(state: string, pending: PendingSignIn, ttlMs: number): Promise<void>;
  /** Take a sign-in in progress (once: a second use of the same `state` finds nothing). */
  takePending(state: string): Promise<PendingSignIn | undefined>;
}

/** The key material of a browser-held secret: its SHA-256, so the store never holds the secret itself. */
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/** The console's session store over a backend. */
export function createConsoleSessionStore(backend: Backend, namespace: string): ConsoleSessionStore {
  const sessionKey = (id: string) => `${namespace}:console:session:${hashOf(id)}`;
  const userKey = (userId: string) => `${namespace}:console:user:${userId}`;
  const pendingKey = (state: string) => `${namespace}:console:signin:${hashOf(state)}`;
  const call = <T>(action: string, op: () => Promise<T>) => guarded(backend.kind, backend.where, action, op);
  const listOf = async (userId: string): Promise<string[]> => {
    const raw: unknown = await backend.keyv.get(userKey(userId));
    return Array.isArray(raw) ? raw.filter((k): k is string => typeof k === 'string') : [];
  };

  return {
    create: (id, session, ttlMs) =>
      call('saving a console session', async () => {
        await backend.keyv.set(sessionKey(id), session, ttlMs);
        // The member's list keeps only keys whose session still exists, so it stays small.
        const kept: string[] = [];
        for (const key of await listOf(session.userId)) if ((await backend.keyv.get(key)) !== undefined) kept.push(key);
        await backend.keyv.set(userKey(session.userId), [...kept, sessionKey(id)]);
      }),
    get: (id) =>
      call('reading a console session', async () => {
        const parsed = SessionSchema.safeParse(await backend.keyv.get(sessionKey(id)));
        return parsed.success ? parsed.data : undefined;
      }),
    touch: (id, session, ttlMs) => call('renewing a console session', async () => void (await backend.keyv.set(sessionKey(id), session, ttlMs))),
    endAllOf: (userId) =>
      call('ending console sessions', async () => {
        const keys = await listOf(userId);
        for (const key of keys) await backend.keyv.delete(key);
        await backend.keyv.delete(userKey(userId));
        return keys.length;
      }),
    savePending: (state, pending, ttlMs) => call('saving a console sign-in', async () => void (await backend.keyv.set(pendingKey(state), pending, ttlMs))),
    takePending: (state) =>
      call('reading a console sign-in', async () => {
        const key = pendingKey(state);
        const parsed = PendingSchema.safeParse(await backend.keyv.get(key));
        // Deleted whatever it held: a state is good for one answer from Discord.
        const taken = await backend.keyv.delete(key);
        return parsed.success && taken ? parsed.data : undefined;
      }),
  };
}
