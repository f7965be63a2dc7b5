/**
 * The options of a command interaction, typed from the registered schema the way the Discord client
 * builds them: it only lets a user pick declared options, fills in their declared types, refuses to
 * send without required ones or with a value outside choices, ranges or channel types, and uploads
 * attachment options to the CDN (`resolved.attachments`). A test error names what the client would refuse.
 */
import type { FakeCore } from './core.js';
import { OptionType } from './command-schema.js';
import type { FakeAttachment, FakeChannel, FakeCommand } from './records.js';
import { charLength } from './validation.js';

type Json = Record<string, unknown>;

/** A file a user attaches to an attachment option. */
export interface AttachmentUpload {
  filename: string;
  data: Buffer | string;
  contentType?: string;
}

export type OptionValue = string | number | boolean | AttachmentUpload;

/** A command option as Discord sends it (name, type, and a value or nested options). */
export interface CommandOption {
  name: string;
  /** Optional in input: the registered schema decides it. */
  type?: number;
  value?: OptionValue;
  options?: CommandOption[];
  focused?: boolean;
}

export interface TypedOptions {
  options: CommandOption[];
  /** Ids of user, channel, role and attachment values, for `resolved`. */
  refs: Array<{ type: number; id: string }>;
  uploads: FakeAttachment[];
}

interface Ctx {
  core: FakeCore;
  command: FakeCommand;
  channel: FakeChannel;
  /** Autocomplete sends partial input: no required check, the focused value is raw text. */
  autocomplete: boolean;
  out: TypedOptions;
}

/** Types the given options against the command's schema; throws a test error for what a client would not send. */
export function typeOptions(core: FakeCore, command: FakeCommand, channel: FakeChannel, given: CommandOption[], autocomplete = false): TypedOptions {
  const out: TypedOptions = { options: [], refs: [], uploads: [] };
  const schema = Array.isArray(command.raw.options) ? (command.raw.options as Json[]) : [];
  out.options = level({ core, command, channel, autocomplete, out }, schema, given, `/${command.name}`);
  return out;
}

function level(ctx: Ctx, schema: Json[], given: CommandOption[], where: string): CommandOption[] {
  const isSub = (o: Json) => o.type === OptionType.Subcommand || o.type === OptionType.SubcommandGroup;
  if (schema.some(isSub)) {
    // "Using subcommands or subcommand groups will make your base command unusable": exactly one is picked.
    const picked = given.length === 1 ? schema.find((o) => o.name === given[0]?.name) : undefined;
    if (!picked) {
      throw new Error(`fake-discord: ${where} needs exactly one of its subcommands (${schema.map((o) => o.name).join(', ')}); got ${JSON.stringify(given.map((g) => g.name))}`);
    }
    const inner = Array.isArray(picked.options) ? (picked.options as Json[]) : [];
    return [{ name: String(picked.name), type: picked.type as number, options: level(ctx, inner, given[0]?.options ?? [], `${where} ${String(picked.name)}`) }];
  }
  const result = given.map((g) => {
    const spec = schema.find((o) => o.name === g.name);
    if (!spec) throw new Error(`fake-discord: ${where} has no option "${g.name}" (it has: ${schema.map((o) => o.name).join(', ') || 'none'})`);
    if (g.type !== undefined && g.type !== spec.type) {
      throw new Error(`fake-discord: option "${g.name}" of ${where} is registered as type ${String(spec.type)}, not ${g.type}`);
    }
    if (g.focused) {
      if (spec.autocomplete !== true) throw new Error(`fake-discord: option "${g.name}" of ${where} has no autocomplete; Discord sends no autocomplete for it`);
      return { name: g.name, type: spec.type as number, value: String(g.value ?? ''), focused: true };
    }
    return { name: g.name, type: spec.type as number, value: checkValue(ctx, spec, g.value, `option "${g.name}" of ${where}`) };
  });
  if (!ctx.autocomplete) {
    const missing = schema.filter((o) => o.required === true && !given.some((g) => g.name === o.name)).map((o) => o.name);
    if (missing.length > 0) throw new Error(`fake-discord: ${where} is missing required option(s) ${missing.join(', ')}; the Discord client will not send it`);
  }
  return result;
}

function checkValue(ctx: Ctx, spec: Json, value: OptionValue | undefined, what: string): string | number | boolean {
  const type = spec.type as number;
  const fail = (why: string): never => {
    throw new Error(`fake-discord: ${what} ${why}`);
  };
  if (value === undefined) return fail('has no value');
  const choices = Array.isArray(spec.choices) ? (spec.choices as Json[]).map((c) => c.value) : [];
  if (choices.length > 0 && !choices.includes(value as never)) fail(`must be one of its choices ${JSON.stringify(choices)}`);
  switch (type) {
    case OptionType.String: {
      if (typeof value !== 'string') return fail('is a STRING option');
      const n = charLength(value);
      if ((typeof spec.min_length === 'number' && n < spec.min_length) || (typeof spec.max_length === 'number' && n > spec.max_length)) fail('is outside min_length/max_length');
      return value;
    }
    case OptionType.Integer:
    case OptionType.Number: {
      if (typeof value !== 'number' || !Number.isFinite(value) || (type === OptionType.Integer && !Number.isSafeInteger(value))) {
        return fail(`is ${type === OptionType.Integer ? 'an INTEGER' : 'a NUMBER'} option`);
      }
      if ((typeof spec.min_value === 'number' && value < spec.min_value) || (typeof spec.max_value === 'number' && value > spec.max_value)) fail('is outside min_value/max_value');
      return value;
    }
    case OptionType.Boolean:
      return typeof value === 'boolean' ? value : fail('is a BOOLEAN option');
    case OptionType.Attachment:
      return upload(ctx, value, what);
    default:
      return reference(ctx, spec, value, what);
  }
}

/** User, channel, role and mentionable options carry an id the client picked from what exists. */
function reference(ctx: Ctx, spec: Json, value: OptionValue, what: string): string {
  const id = typeof value === 'string' ? value : '';
  const { world } = ctx.core;
  const type = spec.type as number;
  const channel = world.channels.get(id);
  const ok = type === OptionType.User ? world.users.has(id)
    : type === OptionType.Role ? world.roles.get(id)?.guildId === ctx.channel.guildId
      : type === OptionType.Mentionable ? world.users.has(id) || world.roles.has(id)
        : channel !== undefined && !channel.deleted && channel.guildId === ctx.channel.guildId;
  if (!ok) throw new Error(`fake-discord: ${what} names ${JSON.stringify(value)}, which the client could not offer here`);
  const types = Array.isArray(spec.channel_types) ? (spec.channel_types as number[]) : [];
  if (type === OptionType.Channel && types.length > 0 && !types.includes(channel!.type)) {
    throw new Error(`fake-discord: ${what} only offers channel types ${JSON.stringify(types)}; ${id} is type ${channel!.type}`);
  }
  ctx.out.refs.push({ type: type === OptionType.Mentionable && world.roles.has(id) ? OptionType.Role : type, id });
  return id;
}

/** The client uploads the file first; the option's value is the new attachment's id. */
function upload(ctx: Ctx, value: OptionValue, what: string): string {
  if (typeof value !== 'object' || value === null || typeof value.filename !== 'string') {
    throw new Error(`fake-discord: ${what} is an ATTACHMENT option; pass { filename, data, contentType? }`);
  }
  const data = typeof value.data === 'string' ? Buffer.from(value.data) : value.data;
  if (data.length > ctx.core.settings.attachmentSizeLimit) throw new Error(`fake-discord: ${what} is over the ${ctx.core.settings.attachmentSizeLimit}-byte upload limit; the client refuses it`);
  const attachment = ctx.core.storeUpload(ctx.channel.id, { filename: value.filename, data, contentType: value.contentType ?? null }, true);
  ctx.out.uploads.push(attachment);
  ctx.out.refs.push({ type: OptionType.Attachment, id: attachment.id });
  return attachment.id;
}
