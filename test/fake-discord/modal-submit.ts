/**
 * A user filling in and submitting a modal the bot showed (callback type 9): a MODAL_SUBMIT interaction
 * (type 5) whose `data.components` mirror the modal's layout, action rows or labels, with the values
 * typed (receiving-and-responding.mdx, Modal Submit Data Structure; components reference, Text Input
 * and Label interaction response structures).
 */
import type { FakeCore } from './core.js';
import type { FakeInteraction } from './records.js';
import { dispatchInteraction } from './user-actions.js';
import { charLength } from './validation.js';

type Json = Record<string, unknown>;

export interface ModalSubmitInput {
  /** The interaction the bot answered with the modal. */
  interactionId: string;
  /** Values by the fields' custom_id: text for text inputs, a list for selects. */
  values: Record<string, string | string[]>;
  /**
   * Skip the client's length checks of text inputs, as a modified client could: what the bot must then
   * check again itself on submit.
   */
  skipLengthChecks?: boolean;
}

const TEXT_INPUT = 4;
const STRING_SELECT = 3;

export function submitModal(core: FakeCore, input: ModalSubmitInput): FakeInteraction {
  const opened = core.interactions.get(input.interactionId);
  const modal = opened?.modal as Json | undefined;
  if (!opened || opened.ackType !== 9 || !modal) throw new Error(`fake-discord: interaction ${input.interactionId} did not open a modal`);
  if ([...core.interactions.values()].some((i) => i.modalOf === opened.id)) throw new Error(`fake-discord: the modal of ${opened.id} was already submitted`);
  const used = new Set<string>();
  const field = (c: Json): Json => {
    const customId = String(c.custom_id);
    const value = input.values[customId];
    used.add(customId);
    if (c.type === TEXT_INPUT) return { type: TEXT_INPUT, ...(c.id !== undefined ? { id: c.id } : {}), custom_id: customId, value: textValue(c, value, input.skipLengthChecks) };
    if (c.type === STRING_SELECT) {
      const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
      const offered = Array.isArray(c.options) ? (c.options as Json[]).map((o) => o.value) : [];
      if (values.some((v) => !offered.includes(v))) throw new Error(`fake-discord: select ${customId} offers ${JSON.stringify(offered)}`);
      if (c.required !== false && values.length === 0) throw new Error(`fake-discord: select ${customId} is required`);
      return { type: STRING_SELECT, ...(c.id !== undefined ? { id: c.id } : {}), custom_id: customId, values };
    }
    throw new Error(`fake-discord: the fake cannot fill modal component type ${String(c.type)}`);
  };
  const components = (Array.isArray(modal.components) ? (modal.components as Json[]) : []).map((row) => {
    if (row.type === 1) return { type: 1, components: (row.components as Json[]).map(field) };
    if (row.type === 18) return { type: 18, ...(row.id !== undefined ? { id: row.id } : {}), component: field(row.component as Json) };
    return { type: row.type, ...(row.id !== undefined ? { id: row.id } : {}) };
  });
  const unknown = Object.keys(input.values).filter((k) => !used.has(k));
  if (unknown.length > 0) throw new Error(`fake-discord: the modal has no field ${unknown.join(', ')}`);
  const channel = core.channel(opened.channelId);
  const record = dispatchInteraction(core, {
    type: 5, data: { custom_id: modal.custom_id, components }, commandName: null, customId: String(modal.custom_id),
    options: [], messageId: opened.messageId,
  }, { channel, userId: opened.userId });
  record.modalOf = opened.id;
  return record;
}

/** The client enforces a text input's `required` (default true) and length bounds before submitting. */
function textValue(c: Json, value: string | string[] | undefined, skipLengthChecks = false): string {
  const text = typeof value === 'string' ? value : '';
  const id = String(c.custom_id);
  if (Array.isArray(value)) throw new Error(`fake-discord: text input ${id} takes a string`);
  if (c.required !== false && text === '') throw new Error(`fake-discord: text input ${id} is required`);
  const n = charLength(text);
  if (!skipLengthChecks && text !== '' && ((typeof c.min_length === 'number' && n < c.min_length) || (typeof c.max_length === 'number' && n > c.max_length))) {
    throw new Error(`fake-discord: text input ${id} must be ${String(c.min_length ?? 0)}-${String(c.max_length ?? 4000)} characters`);
  }
  return text;
}
