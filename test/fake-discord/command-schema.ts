/**
 * Registering application commands: what Discord accepts (docs/interactions/application-commands.mdx,
 * "Application Command Naming" and "Application Command Option Structure") and how a registration is
 * stored (ids kept by name + type across overwrites, like Discord's upsert). Its limits too
 * ("Registering a Command"): 100 CHAT_INPUT, 15 USER and 15 MESSAGE commands per scope (globally, and
 * in each guild), the next refused `400 30032 Maximum number of application commands reached`, a bulk
 * overwrite past them likewise; and one command's combined name, description and value characters
 * (its options, choices and localisations included) at most 8,000, else `50035` with
 * `APPLICATION_COMMAND_TOO_LARGE: Command exceeds maximum size (8000)`.
 */
import { errors, FormErrors } from './api-error.js';
import type { FakeCore } from './core.js';
import type { FakeCommand } from './records.js';
import { charLength } from './validation.js';

type Json = Record<string, unknown>;
type Path = Array<string | number>;

/** Option types by name (application-commands.mdx, "Application Command Option Type"). */
export const OptionType = {
  Subcommand: 1, SubcommandGroup: 2, String: 3, Integer: 4, Boolean: 5, User: 6, Channel: 7, Role: 8,
  Mentionable: 9, Number: 10, Attachment: 11,
} as const;

/** Commands of each type one scope (global, or a guild) may hold. */
export const COMMAND_LIMITS: Readonly<Record<number, number>> = { 1: 100, 2: 15, 3: 15 };
/** The most characters one command may have, counted as below. */
export const COMMAND_MAX_SIZE = 8_000;

/** Characters Discord counts: names, descriptions, choice names and values, and their localisations, through the tree. */
export function commandCharacters(c: Json): number {
  const len = (v: unknown) => (typeof v === 'string' ? charLength(v) : typeof v === 'number' ? String(v).length : 0);
  const locales = (v: unknown) => (v && typeof v === 'object' ? Object.values(v as Json).reduce<number>((n, s) => n + len(s), 0) : 0);
  let n = len(c.name) + len(c.description) + locales(c.name_localizations) + locales(c.description_localizations);
  for (const choice of Array.isArray(c.choices) ? (c.choices as Json[]) : []) n += len(choice.name) + len(choice.value) + locales(choice.name_localizations);
  for (const option of Array.isArray(c.options) ? (c.options as Json[]) : []) n += commandCharacters(option);
  return n;
}

/** 30032 when `commands` hold more of a type than a scope may. */
export function checkCommandCount(commands: ReadonlyArray<{ type: number }>): void {
  for (const [type, max] of Object.entries(COMMAND_LIMITS)) {
    if (commands.filter((c) => c.type === Number(type)).length > max) throw errors.maxCommands(max);
  }
}

/** CHAT_INPUT command and option names; letters with a lowercase variant must be lowercase. */
const CHAT_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
/** USER and MESSAGE commands "may be mixed case and can include spaces". */
const MENU_NAME = /^[-_' \p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

export function validCommandName(name: string, type: number): boolean {
  if (type === 2 || type === 3) return MENU_NAME.test(name);
  return CHAT_NAME.test(name) && name === name.toLowerCase();
}

/** Validates one command as a PUT/POST body; errors land under `path` in Discord's nested shape. */
export function validateCommand(c: Json, errs: FormErrors, path: Path): void {
  const type = c.type === undefined ? 1 : c.type;
  if (type !== 1 && type !== 2 && type !== 3) {
    errs.add([...path, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3}.');
    return;
  }
  const name = typeof c.name === 'string' ? c.name : '';
  if (!validCommandName(name, type)) errs.add([...path, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  const description = typeof c.description === 'string' ? charLength(c.description) : 0;
  if (type === 1 && (description < 1 || description > 100)) {
    errs.add([...path, 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
  const dmp = c.default_member_permissions;
  if (dmp !== undefined && dmp !== null && !(typeof dmp === 'string' && /^\d+$/.test(dmp))) {
    errs.add([...path, 'default_member_permissions'], 'NUMBER_TYPE_COERCE', `Value "${String(dmp)}" is not snowflake.`);
  }
  if (c.contexts !== undefined && c.contexts !== null
    && !(Array.isArray(c.contexts) && c.contexts.every((x) => x === 0 || x === 1 || x === 2))) {
    errs.add([...path, 'contexts'], 'BASE_TYPE_CHOICES', 'Value must be one of {0, 1, 2}.');
  }
  const options = Array.isArray(c.options) ? (c.options as Json[]) : [];
  if (type !== 1 && options.length > 0) {
    errs.add([...path, 'options'], 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Only CHAT_INPUT commands can have options.');
  }
  validateOptions(options, errs, [...path, 'options'], 0);
  if (commandCharacters(c) > COMMAND_MAX_SIZE) errs.add(path, 'APPLICATION_COMMAND_TOO_LARGE', `Command exceeds maximum size (${COMMAND_MAX_SIZE})`);
}

/** depth 0: the command's options; 1: a subcommand group's or subcommand's; 2: a grouped subcommand's. */
function validateOptions(options: Json[], errs: FormErrors, path: Path, depth: number): void {
  if (options.length > 25) errs.add(path, 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  const subs = options.filter((o) => o.type === OptionType.Subcommand || o.type === OptionType.SubcommandGroup);
  if (subs.length > 0 && subs.length < options.length) {
    errs.add(path, 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-command and sub-command group option types are mutually exclusive to all other types');
  }
  const seen = new Set<string>();
  let optionalSeen = false;
  options.forEach((o, i) => {
    const here = [...path, i];
    const name = typeof o.name === 'string' ? o.name : '';
    if (!validCommandName(name, 1)) errs.add([...here, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    if (seen.has(name)) errs.add([...here, 'name'], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique');
    seen.add(name);
    const d = typeof o.description === 'string' ? charLength(o.description) : 0;
    if (d < 1 || d > 100) errs.add([...here, 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    const type = typeof o.type === 'number' ? o.type : 0;
    if (type < 1 || type > 11) errs.add([...here, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, …, 11}.');
    const nested = Array.isArray(o.options) ? (o.options as Json[]) : [];
    if (type === OptionType.SubcommandGroup) {
      if (depth > 0) errs.add([...here, 'type'], 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-command groups can only be nested in the command');
      if (nested.some((n) => n.type !== OptionType.Subcommand)) {
        errs.add([...here, 'options'], 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-command groups can only contain sub-commands');
      }
      validateOptions(nested, errs, [...here, 'options'], depth + 1);
      return;
    }
    if (type === OptionType.Subcommand) {
      if (depth > 1) errs.add([...here, 'type'], 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-commands cannot be nested this deep');
      validateOptions(nested, errs, [...here, 'options'], 2);
      return;
    }
    // "Required options must be listed before optional options" (Application Command Option Structure).
    if (o.required === true && optionalSeen) {
      errs.add([...here, 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options');
    }
    if (o.required !== true) optionalSeen = true;
    const choices = Array.isArray(o.choices) ? (o.choices as Json[]) : [];
    if (choices.length > 25) errs.add([...here, 'choices'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
    if (choices.length > 0 && o.autocomplete === true) {
      errs.add([...here, 'autocomplete'], 'APPLICATION_COMMAND_OPTION_CHOICES_AUTOCOMPLETE', 'Autocomplete cannot be set with choices');
    }
  });
}

/** A stored command; a registration with the same name and type keeps its id, like Discord's upsert. */
export function toCommand(core: FakeCore, raw: Json, guildId: string | null, previous: FakeCommand[]): FakeCommand {
  const type = typeof raw.type === 'number' ? raw.type : 1;
  const name = String(raw.name);
  const same = previous.find((c) => c.name === name && c.type === type);
  return {
    id: same?.id ?? core.world.nextId(), applicationId: core.settings.applicationId, guildId, name, type,
    // "Empty string for USER and MESSAGE commands" (Application Command Structure).
    description: type === 1 && typeof raw.description === 'string' ? raw.description : '', raw,
  };
}

/** Replaces every command in a scope (bulk overwrite): validates all first, so a bad one changes nothing. */
export function overwriteCommands(core: FakeCore, guildId: string | null, body: Json[]): FakeCommand[] {
  const errs = new FormErrors();
  body.forEach((raw, i) => validateCommand(raw, errs, [i]));
  errs.throwIfAny();
  checkCommandCount(body.map((raw) => ({ type: typeof raw.type === 'number' ? raw.type : 1 })));
  const previous = [...core.commands.values()].filter((c) => c.guildId === guildId);
  for (const c of previous) core.commands.delete(c.id);
  return body.map((raw) => {
    const c = toCommand(core, raw, guildId, previous);
    core.commands.set(c.id, c);
    return c;
  });
}

/** The command object as the API returns it. */
export function commandJSON(c: FakeCommand): Json {
  return {
    ...c.raw, id: c.id, application_id: c.applicationId, version: c.id, type: c.type, name: c.name,
    description: c.description, default_member_permissions: c.raw.default_member_permissions ?? null,
    nsfw: false, ...(c.guildId ? { guild_id: c.guildId } : { integration_types: [0], contexts: c.raw.contexts ?? null }),
  };
}
