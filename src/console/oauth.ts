/**
 * Signing in with Discord: OAuth2's authorization code grant with `state` and PKCE (S256), scopes
 * `identify guilds` only. The authorize page is at the origin of DISCORD_API_BASE_URL (discord.com
 * by default) under `/oauth2/authorize`; the code is exchanged on the server, with the client secret, at
 * `<api>/oauth2/token`, and the access token is used twice (who the member is, which servers they
 * list) and revoked at once: it is never sent to the browser, logged, or kept. Calls go through
 * discord.js's REST client, like every other call to Discord.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DiscordAPIError, REST } from 'discord.js';
import { Routes, type RESTGetAPICurrentUserGuildsResult, type RESTGetAPIUserResult, type RESTPostOAuth2AccessTokenResult } from 'discord.js';

/** The scopes asked for: who the member is, and the servers they are in (only to know where to look). */
export const SCOPES = 'identify guilds';

/** A member as signing in tells: their id, the name to greet them with, and the servers they listed. */
export interface SignedIn {
  userId: string;
  name: string;
  guildIds: string[];
}

/** A sign-in Discord refused or that failed, with a sentence for the member. */
export class SignInError extends Error {}

export interface OAuthOptions {
  /** DISCORD_API_BASE_URL, e.g. `https://discord.com/api` (the default). */
  apiBaseUrl?: string;
  clientId: string;
  clientSecret: string;
  /** `<CONSOLE_PUBLIC_URL>/auth/callback`. */
  redirectUri: string;
}

/** A PKCE pair: the verifier the server keeps, the challenge sent to Discord. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A fresh `state`: unguessable, bound to the browser by a cookie and to the server by the store. */
export const newState = () => randomBytes(24).toString('base64url');

export interface OAuth {
  authorizeUrl(state: string, challenge: string): string;
  /** Exchange a code for who signed in; the token is revoked before this returns. */
  signIn(code: string, verifier: string): Promise<SignedIn>;
  close(): void;
}

export function createOAuth(options: OAuthOptions): OAuth {
  const api = (options.apiBaseUrl ?? 'https://discord.com/api').replace(/\/+$/, '');
  // Not the bot's client: these calls carry the application's credentials or a member's token, never the bot token.
  const rest = new REST({ api, version: '10' });
  const basic = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;
  const form = (fields: Record<string, string>) => ({
    auth: false,
    passThroughBody: true,
    body: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
  });
  const asMember = (token: string) => ({ auth: false, headers: { Authorization: `Bearer ${token}` } });

  return {
    authorizeUrl(state, challenge) {
      const url = new URL('/oauth2/authorize', new URL(api).origin);
      const query = { response_type: 'code', client_id: options.clientId, scope: SCOPES, redirect_uri: options.redirectUri, state, code_challenge: challenge, code_challenge_method: 'S256' };
      for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
      return url.toString();
    },
    async signIn(code, verifier) {
      let token: RESTPostOAuth2AccessTokenResult;
      try {
        token = (await rest.post(Routes.oauth2TokenExchange(), form({ grant_type: 'authorization_code', code, redirect_uri: options.redirectUri, code_verifier: verifier }))) as RESTPostOAuth2AccessTokenResult;
      } catch (error) {
        throw new SignInError(`Discord refused the sign-in code (${describeOAuthError(error)}). Start again from the console's first page.`);
      }
      try {
        const [user, guilds] = await Promise.all([
          rest.get(Routes.user(), asMember(token.access_token)) as Promise<RESTGetAPIUserResult>,
          rest.get(Routes.userGuilds(), { ...asMember(token.access_token), query: new URLSearchParams({ limit: '200' }) }) as Promise<RESTGetAPICurrentUserGuildsResult>,
        ]);
        return { userId: user.id, name: user.global_name ?? user.username, guildIds: guilds.map((g) => g.id) };
      } catch (error) {
        throw new SignInError(`Discord did not say who signed in (${describeOAuthError(error)}). Try again in a moment.`);
      } finally {
        // The console needs nothing more of the member's token: it ends now rather than live a week.
        await rest.post(Routes.oauth2TokenRevocation(), form({ token: token.access_token, token_type_hint: 'access_token' })).catch(() => undefined);
      }
    },
    close() {
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
    },
  };
}

/** What Discord said, without anything secret (OAuth errors carry `error` and `error_description`). */
function describeOAuthError(error: unknown): string {
  if (error instanceof DiscordAPIError) {
    const raw = error.rawError as { error?: string; error_description?: string; message?: string };
    return `${error.status}${raw.error ? ` ${raw.error}` : ''}${raw.error_description ? `: ${raw.error_description}` : raw.message ? `: ${raw.message}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}
