/**
 * The fake Discord's OAuth2 side follows Discord's (topics/oauth2.mdx): the authorize page redirects
 * back with `code` and `state`, or `error=access_denied`; the token URL takes only form bodies, checks
 * the client's credentials (Basic or in the body), the one-use code, the redirect URI and the PKCE
 * verifier, answering in OAuth's error shape; a bearer token reads `/users/@me` and its guilds until revoked.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../fake-discord/index.js';

let fake: FakeDiscord;
const redirect = 'http://127.0.0.1:1/auth/callback';
const verifier = 'v'.repeat(43);
const challenge = createHash('sha256').update(verifier).digest('base64url');

beforeAll(async () => {
  fake = await FakeDiscord.start({ log: () => undefined });
  fake.oauth.configure({ clientSecret: 'secret', redirectUris: [redirect] });
});
afterAll(async () => fake?.close());

/** A code for alice, through the authorize page. */
async function code(extra: Record<string, string> = {}): Promise<string> {
  fake.oauth.signInAs(fake.defaults.userId);
  const query = new URLSearchParams({ response_type: 'code', client_id: fake.applicationId, scope: 'identify guilds', redirect_uri: redirect, state: 's1', code_challenge: challenge, code_challenge_method: 'S256', ...extra });
  const answer = await fetch(`${fake.cdnUrl}/oauth2/authorize?${query}`, { redirect: 'manual' });
  const back = new URL(answer.headers.get('location')!);
  expect(back.searchParams.get('state')).toBe('s1');
  return back.searchParams.get('code')!;
}

const token = (fields: Record<string, string>, auth = `Basic ${Buffer.from(`${fake.applicationId}:secret`).toString('base64')}`) =>
  fetch(`${fake.apiUrl}/v10/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body: new URLSearchParams(fields) });

describe('the fake Discord\'s OAuth2', () => {
  it('exchanges a code once, with the verifier, for a token that reads the user and their guilds until revoked', async () => {
    const c = await code();
    const ok = await token({ grant_type: 'authorization_code', code: c, redirect_uri: redirect, code_verifier: verifier });
    const body = (await ok.json()) as { access_token: string; token_type: string; scope: string };
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'identify guilds' });
    const me = (await (await fetch(`${fake.apiUrl}/v10/users/@me`, { headers: { authorization: `Bearer ${body.access_token}` } })).json()) as { id: string };
    expect(me.id).toBe(fake.defaults.userId);
    const guilds = (await (await fetch(`${fake.apiUrl}/v10/users/@me/guilds`, { headers: { authorization: `Bearer ${body.access_token}` } })).json()) as Array<{ id: string; owner: boolean; permissions: string }>;
    expect(guilds).toEqual([expect.objectContaining({ id: fake.defaults.guildId, owner: false })]);
    expect((await token({ grant_type: 'authorization_code', code: c, redirect_uri: redirect, code_verifier: verifier })).status).toBe(400);
    await fetch(`${fake.apiUrl}/v10/oauth2/token/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: body.access_token }) });
    expect((await fetch(`${fake.apiUrl}/v10/users/@me`, { headers: { authorization: `Bearer ${body.access_token}` } })).status).toBe(401);
  });

  it('answers OAuth errors: a wrong secret, a wrong verifier, another redirect URI, a JSON body', async () => {
    const grant = async (fields: Record<string, string>, auth?: string) => {
      const answer = await token({ grant_type: 'authorization_code', code: await code(), redirect_uri: redirect, code_verifier: verifier, ...fields }, auth);
      return { status: answer.status, body: await answer.json() };
    };
    expect(await grant({}, `Basic ${Buffer.from(`${fake.applicationId}:wrong`).toString('base64')}`)).toEqual({ status: 401, body: { error: 'invalid_client' } });
    expect(await grant({ code_verifier: 'w'.repeat(43) })).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid "code_verifier" in request.' } });
    expect(await grant({ redirect_uri: 'http://127.0.0.1:2/elsewhere' })).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' } });
    const json = await fetch(`${fake.apiUrl}/v10/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'authorization_code' }) });
    expect(json.status).toBe(400);
  });

  it('sends the member back with error=access_denied when they cancel, and refuses an unregistered redirect URI on its own page', async () => {
    fake.oauth.signInAs(fake.defaults.userId, { deny: true });
    const query = new URLSearchParams({ response_type: 'code', client_id: fake.applicationId, scope: 'identify', redirect_uri: redirect, state: 's2' });
    const back = new URL((await fetch(`${fake.cdnUrl}/oauth2/authorize?${query}`, { redirect: 'manual' })).headers.get('location')!);
    expect([back.searchParams.get('error'), back.searchParams.get('state'), back.searchParams.get('code')]).toEqual(['access_denied', 's2', null]);
    query.set('redirect_uri', 'https://evil.example/cb');
    expect((await fetch(`${fake.cdnUrl}/oauth2/authorize?${query}`, { redirect: 'manual' })).status).toBe(400);
  });
});
