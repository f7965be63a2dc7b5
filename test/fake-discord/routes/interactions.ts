/**
 * Interaction responses: the callback endpoint (one acknowledgement per interaction, within the
 * deadline) and the interaction webhook (@original and follow-ups, valid for the token's lifetime).
 */
import { performance } from 'node:perf_hooks';
import { errors, FormErrors } from '../api-error.js';
import { type FakeCore, MessageFlag } from '../core.js';
import { json, noContent, type RequestContext, type Reply, type RouteDef } from '../http.js';
import type { CallbackRecord, FakeInteraction, FakeMessage } from '../records.js';
import { charLength } from '../validation.js';

type Json = Record<string, unknown>;

const Callback = { Pong: 1, Reply: 4, Defer: 5, DeferUpdate: 6, Update: 7, Autocomplete: 8, Modal: 9 } as const;

/** Which callback types each interaction type accepts. */
const ALLOWED: Record<number, number[]> = {
  2: [Callback.Reply, Callback.Defer, Callback.Modal],
  3: [Callback.Reply, Callback.Defer, Callback.DeferUpdate, Callback.Update, Callback.Modal],
  4: [Callback.Autocomplete],
  5: [Callback.Reply, Callback.Defer, Callback.DeferUpdate, Callback.Update],
};

export function interactionRoutes(core: FakeCore): RouteDef[] {
  const byToken = (appId: string, token: string): FakeInteraction => {
    const i = [...core.interactions.values()].find((x) => x.token === token);
    if (!i || appId !== core.settings.applicationId || !i.acknowledged) throw errors.unknownWebhook();
    if (performance.now() - i.dispatchedAt > core.settings.tokenLifetimeMs) throw errors.invalidWebhookToken();
    return i;
  };
  const target = (i: FakeInteraction, messageId: string): FakeMessage => {
    const id = messageId === '@original' ? i.originalMessageId : messageId;
    const m = id ? core.world.messages.get(id) : undefined;
    if (!m || m.deleted || (id !== i.originalMessageId && !i.followupIds.includes(id as string))) throw errors.unknownMessage();
    return m;
  };
  return [
    { method: 'POST', pattern: '/interactions/:interactionId/:token/callback', auth: false, handle: (ctx) => callback(core, ctx) },
    {
      method: 'GET', pattern: '/webhooks/:applicationId/:token/messages/:messageId', auth: false,
      handle: ({ params }) => json(core.messageOut(target(byToken(params.applicationId!, params.token!), params.messageId!))),
    },
    {
      method: 'PATCH', pattern: '/webhooks/:applicationId/:token/messages/:messageId', auth: false,
      handle: ({ params, body, files }) => {
        const m = target(byToken(params.applicationId!, params.token!), params.messageId!);
        return json(core.messageOut(core.edit(m, body, { files, via: 'webhook' })));
      },
    },
    {
      method: 'DELETE', pattern: '/webhooks/:applicationId/:token/messages/:messageId', auth: false,
      handle: ({ params }) => {
        core.remove(target(byToken(params.applicationId!, params.token!), params.messageId!));
        return noContent();
      },
    },
    {
      method: 'POST', pattern: '/webhooks/:applicationId/:token', auth: false,
      handle: ({ params, body, files, query }) => {
        const i = byToken(params.applicationId!, params.token!);
        const original = i.originalMessageId ? core.world.messages.get(i.originalMessageId) : undefined;
        // After a deferred reply, the first follow-up replaces the "thinking…" message.
        const m = original && !original.deleted && (original.flags & MessageFlag.Loading) !== 0
          ? core.edit(original, body, { files, via: 'webhook' })
          : followup(core, i, body, files);
        return query.get('wait') === 'true' ? json(core.messageOut(m)) : noContent();
      },
    },
  ];
}

function followup(core: FakeCore, i: FakeInteraction, body: Json, files: RequestContext['files']): FakeMessage {
  const m = core.buildMessage({
    channel: core.channel(i.channelId), authorId: core.botId, body, files, source: 'followup',
    type: i.type === 2 ? 20 : 0, interactionId: i.id,
  });
  i.followupIds.push(m.id);
  return core.commit(m);
}

async function callback(core: FakeCore, ctx: RequestContext): Promise<Reply> {
  const at = performance.now();
  const i = core.interactions.get(ctx.params.interactionId!);
  const type = typeof ctx.body.type === 'number' ? ctx.body.type : -1;
  const data = (ctx.body.data ?? {}) as Json;
  const record: CallbackRecord = { type, data: ctx.body.data, at, latencyMs: 0, status: 0, errorCode: null };
  if (i) record.latencyMs = at - i.dispatchedAt;
  try {
    if (!i || i.token !== ctx.params.token || i.expired) throw errors.unknownInteraction();
    if (i.acknowledged) throw errors.alreadyAcknowledged();
    // Updating a message is only for interactions that came from one (a component, or a modal opened by one).
    const allowed = (ALLOWED[i.type] ?? []).filter((t) => i.messageId !== null || (t !== Callback.DeferUpdate && t !== Callback.Update));
    if (!allowed.includes(type)) {
      const errs = new FormErrors();
      errs.add(['type'], 'INTERACTION_RESPONSE_TYPE_INVALID', `Value must be one of ${JSON.stringify(allowed)}.`);
      errs.throwIfAny();
    }
    if (type === Callback.Modal) validateModal(data);
    const message = respond(core, i, type, data, ctx.files);
    i.acknowledged = true;
    i.ackType = type;
    i.ackLatencyMs = record.latencyMs;
    i.ackedAt = at;
    record.status = ctx.query.get('with_response') === 'true' ? 200 : 204;
    return record.status === 200 ? json(withResponse(core, i, type, message)) : noContent();
  } catch (error) {
    const e = error as { status?: number; code?: number };
    record.status = e.status ?? 500;
    record.errorCode = e.code ?? null;
    throw error;
  } finally {
    if (i) {
      i.callbacks.push(record);
      core.emit({ kind: 'callback', interaction: i, callback: record });
    }
  }
}

function respond(core: FakeCore, i: FakeInteraction, type: number, data: Json, files: RequestContext['files']): FakeMessage | null {
  const channel = core.channel(i.channelId);
  const ephemeral = typeof data.flags === 'number' && (data.flags & MessageFlag.Ephemeral) !== 0;
  switch (type) {
    case Callback.Reply: {
      const m = core.buildMessage({
        channel, authorId: core.botId, body: data, files, source: 'interaction-response',
        type: i.type === 2 ? 20 : 0, interactionId: i.id, errorPath: ['data'],
      });
      i.ephemeral = ephemeral;
      i.originalMessageId = m.id;
      return core.commit(m);
    }
    case Callback.Defer: {
      const m = core.buildMessage({
        channel, authorId: core.botId, body: { content: 'thinking…', flags: data.flags }, source: 'interaction-response',
        type: i.type === 2 ? 20 : 0, interactionId: i.id,
      });
      m.content = '';
      m.flags |= MessageFlag.Loading;
      i.ephemeral = ephemeral;
      i.originalMessageId = m.id;
      return core.commit(m);
    }
    case Callback.DeferUpdate:
      i.originalMessageId = i.messageId;
      return null;
    case Callback.Update: {
      i.originalMessageId = i.messageId;
      const m = core.message(i.channelId, i.messageId ?? '');
      return core.edit(m, data, { files, errorPath: ['data'], via: 'webhook' });
    }
    case Callback.Autocomplete:
      i.autocompleteChoices = validateChoices(data.choices);
      return null;
    default:
      i.modal = data;
      return null;
  }
}

/** receiving-and-responding.mdx, Modal: custom_id up to 100, title up to 45, 1 to 5 components. */
function validateModal(data: Json): void {
  const errs = new FormErrors();
  const id = typeof data.custom_id === 'string' ? charLength(data.custom_id) : 0;
  if (id < 1 || id > 100) errs.add(['data', 'custom_id'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  const title = typeof data.title === 'string' ? charLength(data.title) : 0;
  if (title < 1 || title > 45) errs.add(['data', 'title'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 45 in length.');
  const components = Array.isArray(data.components) ? data.components : [];
  if (components.length < 1 || components.length > 5) errs.add(['data', 'components'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 5 in length.');
  errs.throwIfAny();
}

function validateChoices(raw: unknown): unknown[] {
  const choices = Array.isArray(raw) ? (raw as Json[]) : [];
  const errs = new FormErrors();
  if (choices.length > 25) errs.add(['data', 'choices'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  choices.forEach((c, n) => {
    const name = typeof c.name === 'string' ? charLength(c.name) : 0;
    if (name < 1 || name > 100) errs.add(['data', 'choices', n, 'name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    if (typeof c.value === 'string' && charLength(c.value) > 100) {
      errs.add(['data', 'choices', n, 'value'], 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
    }
  });
  errs.throwIfAny();
  return choices;
}

/** The `?with_response=true` body: the interaction callback object and its resource. */
function withResponse(core: FakeCore, i: FakeInteraction, type: number, message: FakeMessage | null): Json {
  const responseMessage = message ?? (i.originalMessageId ? core.world.messages.get(i.originalMessageId) ?? null : null);
  return {
    interaction: {
      id: i.id, type: i.type,
      ...(responseMessage ? {
        response_message_id: responseMessage.id,
        response_message_loading: (responseMessage.flags & MessageFlag.Loading) !== 0,
        response_message_ephemeral: (responseMessage.flags & MessageFlag.Ephemeral) !== 0,
      } : {}),
    },
    resource: { type, ...(responseMessage && type !== 6 ? { message: core.messageOut(responseMessage) } : {}) },
  };
}
