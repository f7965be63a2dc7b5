/**
 * Discord's OAuth2 side (topics/oauth2.mdx, Authorization Code Grant; discord.com/.well-known/
 * oauth-authorization-server for PKCE), for the web console's tests: the authorize page at the origin's
 * `/oauth2/authorize` approves at once for the user a test chose (`signInAs`) and redirects back with
 * `code` and `state`; the token URL (`/api[/v10]/oauth2/token`, form-encoded only) checks the client's id
 * and secret (HTTP Basic or the body), the code (one use, 10 minutes), the `redirect_uri` and the PKCE
 * `code_verifier` (S256), answering errors in OAuth's shape (`{"error": "invalid_grant",
 * "error_description": "Invalid \"code\" in request."}`, as Discord sends them); `/users/@me` and
 * `/users/@me/guilds` answer a bearer token with the user and their servers as of now; revocation ends a
 * token. What the docs leave out (the exact wording of most errors, the code's lifetime) is a best guess.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Permission, ALL_PERMISSIONS } from './permissions.js';
import { userJSON } from './serialize.js';
import type { FakeWorld } from './world.js';

/** Scopes the console may ask for; the fake refuses others the way Discord's page does (400). */
const KNOWN_SCOPES = new Set(['identify', 'guilds', 'email', 'guilds.members.read']);
const CODE_LIFETIME_MS = 10 * 60_000;

interface Grant {
  userId: string;
  redirectUri: string;
  scope: string;
  challenge?: string;
  expiresAt: number;
}

export interface OAuthExchange {
  /** What the token request carried (no secret). */
  grantType: string;
  redirectUri: string;
  hadVerifier: boolean;
  status: number;
  error?: string;
}

export class FakeOAuth {
  /** The application's client secret and redirect URIs (developer portal → OAuth2); `configure` sets them. */
  #secret = 'fake-client-secret';
  #redirects = new Set<string>();
  #nextUser: string | undefined;
  #deny = false;
  readonly #codes = new Map<string, Grant>();
  readonly #tokens = new Map<string, { userId: string; scope: string }>();
  /** Every token request, in order. */
  readonly exchanges: OAuthExchange[] = [];
  /** Every authorize request's query, in order. */
  readonly authorizations: URLSearchParams[] = [];
  /** Access tokens revoked. */
  readonly revoked: string[] = [];

  constructor(private readonly world: FakeWorld, private readonly clientId: () => string, private readonly now: () => number) {}

  /** The client secret the token URL accepts and the redirect URIs the authorize page accepts. */
  configure(app: { clientSecret: string; redirectUris: string[] }): void {
    this.#secret = app.clientSecret;
    this.#redirects = new Set(app.redirectUris);
  }

  /** Who approves on the next visit to the authorize page (`deny`: they press Cancel). */
  signInAs(userId: string, options: { deny?: boolean } = {}): void {
    this.#nextUser = userId;
    this.#deny = options.deny ?? false;
  }

  /** Bearer tokens alive now. */
  get liveTokens(): number {
    return this.#tokens.size;
  }

  /** Handle the request if it is OAuth2's; false lets the REST router have it. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.replace(/^\/api(\/v\d+)?/, '');
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (req.method === 'GET' && url.pathname === '/oauth2/authorize') return this.#authorize(url.searchParams, res), true;
    if (req.method === 'POST' && url.pathname.startsWith('/api') && path === '/oauth2/token') return await this.#token(req, res), true;
    if (req.method === 'POST' && url.pathname.startsWith('/api') && path === '/oauth2/token/revoke') return await this.#revoke(req, res), true;
    if (bearer && req.method === 'GET' && (path === '/users/@me' || path === '/users/@me/guilds')) return this.#asUser(bearer, path, res), true;
    return false;
  }

  #authorize(query: URLSearchParams, res: ServerResponse): void {
    this.authorizations.push(query);
    const redirect = query.get('redirect_uri') ?? '';
    const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
    const problem =
      query.get('client_id') !== this.clientId() ? 'Unknown Application'
      : query.get('response_type') !== 'code' ? 'Invalid response_type'
      : !this.#redirects.has(redirect) ? 'Invalid OAuth2 redirect_uri'
      : scopes.length === 0 || scopes.some((s) => !KNOWN_SCOPES.has(s)) ? 'Invalid scope'
      : query.has('code_challenge') && query.get('code_challenge_method') !== 'S256' ? 'Invalid code_challenge_method'
      : this.#nextUser === undefined ? 'No user signed in to the fake (call fake.oauth.signInAs first)'
      : undefined;
    if (problem) return page(res, 400, problem);
    const back = new URL(redirect);
    const state = query.get('state');
    if (this.#deny) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The resource owner or authorization server denied the request');
    } else {
      const code = randomBytes(15).toString('base64url');
      const challenge = query.get('code_challenge') ?? undefined;
      this.#codes.set(code, { userId: this.#nextUser!, redirectUri: redirect, scope: scopes.join(' '), challenge, expiresAt: this.now() + CODE_LIFETIME_MS });
      back.searchParams.set('code', code);
    }
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  async #token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readText(req);
    const record = (status: number, error?: string) => this.exchanges.push({ grantType: form.get('grant_type') ?? '', redirectUri: form.get('redirect_uri') ?? '', hadVerifier: form.has('code_verifier'), status, error });
    const form = new URLSearchParams(body);
    const fail = (status: number, error: string, description?: string) => {
      record(status, error);
      sendJson(res, status, { error, ...(description ? { error_description: description } : {}) });
    };
    // The token URL takes only application/x-www-form-urlencoded (oauth2.mdx, OAuth2 URLs).
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return fail(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [form.get('client_id'), form.get('client_secret')];
    if (id !== this.clientId() || secret !== this.#secret) return fail(401, 'invalid_client');
    if (form.get('grant_type') !== 'authorization_code') return fail(400, 'unsupported_grant_type');
    const code = form.get('code') ?? '';
    const grant = this.#codes.get(code);
    this.#codes.delete(code);
    if (!grant || grant.expiresAt <= this.now()) return fail(400, 'invalid_grant', 'Invalid "code" in request.');
    if (form.get('redirect_uri') !== grant.redirectUri) return fail(400, 'invalid_grant', 'Invalid "redirect_uri" in request.');
    if (grant.challenge !== undefined) {
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return fail(400, 'invalid_grant', 'Invalid "code_verifier" in request.');
    }
    const token = randomBytes(20).toString('base64url');
    this.#tokens.set(token, { userId: grant.userId, scope: grant.scope });
    record(200);
    sendJson(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 604_800, refresh_token: randomBytes(20).toString('base64url'), scope: grant.scope });
  }

  async #revoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readText(req));
    const token = form.get('token') ?? '';
    if (this.#tokens.delete(token)) this.revoked.push(token);
    sendJson(res, 200, {});
  }

  #asUser(token: string, path: string, res: ServerResponse): void {
    const grant = this.#tokens.get(token);
    const user = grant && this.world.users.get(grant.userId);
    if (!grant || !user) return sendJson(res, 401, { message: '401: Unauthorized', code: 0 });
    const scopes = grant.scope.split(' ');
    if (path === '/users/@me') return scopes.includes('identify') ? sendJson(res, 200, userJSON(user)) : sendJson(res, 401, { message: '401: Unauthorized', code: 0 });
    if (!scopes.includes('guilds')) return sendJson(res, 403, { message: 'Missing Access', code: 50001 });
    // The user's servers with their base permissions there as of now (user.mdx, Get Current User Guilds).
    sendJson(res, 200, this.world.mutualGuilds(user.id).map((id) => {
      const guild = this.world.guilds.get(id)!;
      return { id, name: guild.name, icon: null, banner: null, owner: guild.ownerId === user.id, permissions: this.#basePermissions(id, user.id).toString(), features: [] };
    }));
  }

  /** Permissions from @everyone and the member's roles; all of them for the owner or an Administrator. */
  #basePermissions(guildId: string, userId: string): bigint {
    const guild = this.world.guilds.get(guildId)!;
    if (guild.ownerId === userId) return ALL_PERMISSIONS;
    const member = this.world.member(guildId, userId);
    let bits = this.world.roles.get(guild.everyoneRoleId)?.permissions ?? 0n;
    for (const id of member?.roles ?? []) bits |= this.world.roles.get(id)?.permissions ?? 0n;
    return (bits & Permission.Administrator) !== 0n ? ALL_PERMISSIONS : bits;
  }
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><title>Discord</title><p>${text.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</p>`);
}
