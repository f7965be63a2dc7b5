/**
 * The sentences a moderator reads when choosing a tool, a model or a rule's target, and after a tool
 * change, whether they used `/tools` and `/settings` or the web console: one wording, written here once.
 * What is valid comes from the caller (the toolbox, the models the operator allows); this only checks
 * the choice against it and words the answer. Discord markup (inline code, mentions) is kept: the console
 * renders the same markup as HTML.
 */
import { describeError } from '../../errors.js';
import type { ChannelDefaults, RuleTarget } from '../../policy/index.js';
import { shadowingRules } from '../../policy/index.js';
import type { ToolRule } from '../../state/guild-settings-schema.js';
import { describeRule, targetPhrase } from './rule-text.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** The more specific rules named under a change: enough to see why it does not apply everywhere. */
const SHADOWS_SHOWN = 10;

/** A choice found (its canonical spelling), or the sentence saying what is wrong and what to pick. */
export type Chosen = { ok: true; name: string } | { ok: false; problem: string };

/** The tool named `typed` (exact, then ignoring case), or a problem listing the valid names. */
export function chooseTool(names: readonly string[], typed: string): Chosen {
  const found = names.find((n) => n === typed) ?? names.find((n) => n.toLowerCase() === typed.toLowerCase());
  if (found) return { ok: true, name: found };
  const shown = typed.length > TEXT_CAPS.typedTool ? `${typed.slice(0, TEXT_CAPS.typedTool)}…` : typed;
  return { ok: false, problem: `There is no tool named \`${shown.replace(/`/g, 'ˋ')}\`. Valid tools: ${names.map((n) => `\`${n}\``).join(', ')}. Nothing was changed.` };
}

/** The models a moderator may pick: OPENAI_MODELS, or with `*` whatever the model server lists; the default first. */
export async function choosableModels(defaults: Pick<ChannelDefaults, 'model' | 'models'>, serverModels: () => Promise<string[]>): Promise<string[]> {
  const { model, models } = defaults;
  if (models === '*') return [...new Set([model, ...(await serverModels())])];
  return [...new Set([model, ...(models ?? [])])];
}

/** Why a model a moderator chose cannot be used, naming the ones that can. */
export function modelProblem(chosen: string, allowed: readonly string[]): string {
  return `\`${chosen.slice(0, TEXT_CAPS.typedModel).replace(/`/g, 'ˋ')}\` is not a model this bot may use. Choose one of: ${allowed.map((m) => `\`${m}\``).join(', ')} (the operator lists them in OPENAI_MODELS). Nothing was changed.`;
}

/** What a moderator hears when the store refused a change: nothing was saved. */
export function saveFailed(error: unknown): string {
  return `❌ I could not save that (${describeError(error)}). Nothing was changed; try again in a moment.`;
}

/** A role rule for @everyone is no role rule. */
export const EVERYONE_ROLE_PROBLEM = '@everyone is not a role rule: leave out `role` to change the tool for everyone. Nothing was changed.';

/** What a saved write of the rules object gives back that these answers use. */
interface Saved {
  detail: string;
  logNote: string;
  settings: { toolRules: ToolRule[]; approvalRules?: ToolRule[] };
}

/** The answer to an enable or disable: done, from the next step, and the more specific rules that still decide where they apply. */
export function toolModeAnswer(saved: Saved, tool: string, target: RuleTarget): string {
  const shadows = shadowingRules(saved.settings.toolRules, tool, target);
  const note = shadows.length === 0 ? '' : `\nThese more specific rules still decide where they apply:\n${shadows.slice(0, SHADOWS_SHOWN).map((r) => `• ${describeRule(r)}`).join('\n')}`;
  return `✅ Done: ${saved.detail}. Runs use it from their next step.${note}${saved.logNote}`;
}

/** The answer to an approval change, with what `ask` means and the more specific approval rules that still decide. */
export function approvalAnswer(saved: Saved, tool: string, mode: 'ask' | 'auto', target: RuleTarget): string {
  const shadows = shadowingRules(saved.settings.approvalRules ?? [], tool, target);
  const note = shadows.length === 0 ? '' : `\nMore specific approval rules still decide where they apply:\n${shadows.slice(0, SHADOWS_SHOWN).map((r) => `• \`${r.tool}\` ${r.allow ? 'auto' : 'ask'} ${targetPhrase(r)}`).join('\n')}`;
  const how = mode === 'ask' ? ' A run that calls it shows Approve and Deny buttons to the person who asked and to moderators; no decision in time means not run.' : '';
  return `✅ Done: ${saved.detail}. It applies from the next call.${how}${note}${saved.logNote}`;
}
