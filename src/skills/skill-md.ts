/**
 * `SKILL.md`, the Agent Skills format: YAML front matter (`name`, `description`, `allowed-tools`, and
 * `metadata` as a string map, whose `inputs` is this bot's comma-separated input list), then the
 * instructions as the body. `allowed-tools` is a space-separated string by the convention; a YAML list
 * is read too. A front-matter field the format does not define is refused with its name, never ignored:
 * a file that says more than it can mean here must not import as if it said less. `license` and
 * `compatibility` are the format's own and carry nothing here: read, and said to be left out.
 */
import { parseDocument, stringify } from 'yaml';
import { parseInputs, parseToolList, type SkillDraft } from './skill-rules.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** The front matter fields of the Agent Skills format. */
const KNOWN = new Set(['name', 'description', 'allowed-tools', 'metadata', 'license', 'compatibility']);
/** Largest SKILL.md read: the instructions' 4,000 characters and the front matter, with room to spare. */
export const SKILL_MD_MAX_BYTES = 32_000;

/** A file read into a draft (still to be checked like any new skill), or why it cannot be one. */
export type ParsedSkillMd = { ok: true; draft: SkillDraft; notes: string[] } | { ok: false; problem: string };

const refuse = (problem: string): ParsedSkillMd => ({ ok: false, problem: `${problem} Nothing was imported.` });

/** Read a SKILL.md. */
export function parseSkillMd(text: string): ParsedSkillMd {
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) return refuse('This is not a SKILL.md: it must start with YAML front matter between two `---` lines, then the instructions.');
  const doc = parseDocument(match[1]!, { uniqueKeys: true });
  if (doc.errors.length) return refuse(`Its front matter is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}).`);
  let data: unknown;
  try {
    // No aliases: a few lines of anchors can expand into millions of nodes.
    data = doc.toJS({ maxAliasCount: 0 });
  } catch (error) {
    return refuse(`Its front matter cannot be read (${(error as Error).message.split("\n")[0]}).`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return refuse('Its front matter must be a set of fields (`name: …`, `description: …`).');
  const fields = data as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !KNOWN.has(k));
  if (unknown.length) {
    return refuse(`Its front matter has ${unknown.length === 1 ? 'a field' : 'fields'} the Agent Skills format does not define: ${unknown.map((k) => `\`${k.slice(0, TEXT_CAPS.typedName)}\``).join(', ')}. Use only name, description, allowed-tools and metadata (inputs).`);
  }
  const name = fields.name;
  const description = fields.description;
  if (typeof name !== 'string' || !name) return refuse('Its front matter needs a `name` (text).');
  if (typeof description !== 'string' || !description) return refuse('Its front matter needs a `description` (text).');
  const tools = readTools(fields['allowed-tools']);
  if (!tools.ok) return refuse(tools.problem);
  const metadata = fields.metadata ?? {};
  if (typeof metadata !== 'object' || Array.isArray(metadata) || Object.values(metadata as object).some((v) => typeof v !== 'string')) {
    return refuse('Its `metadata` must map names to text (`inputs: "incident, audience"`).');
  }
  const inputs = parseInputs((metadata as Record<string, string>).inputs);
  if (!inputs.ok) return refuse(inputs.problem.replace(/ Nothing was saved\.$/, ''));
  const notes = ['license', 'compatibility'].filter((k) => k in fields).map((k) => `Its \`${k}\` is not used here: left out.`);
  return { ok: true, draft: { name, description, instructions: match[2]!.trim(), inputs: inputs.inputs, tools: tools.tools }, notes };
}

function readTools(value: unknown): { ok: true; tools: string[] } | { ok: false; problem: string } {
  if (value === undefined || value === null) return { ok: true, tools: [] };
  if (typeof value === 'string') return { ok: true, tools: parseToolList(value) };
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return { ok: true, tools: parseToolList(value.join(' ')) };
  return { ok: false, problem: 'Its `allowed-tools` must be tool names separated by spaces (or a list of names).' };
}

/** Write a skill as a SKILL.md that `parseSkillMd` reads back to the same skill. */
export function formatSkillMd(skill: SkillDraft): string {
  const front: Record<string, unknown> = { name: skill.name, description: skill.description };
  if (skill.tools.length) front['allowed-tools'] = skill.tools.join(' ');
  if (skill.inputs.length) front.metadata = { inputs: skill.inputs.join(', ') };
  return `---\n${stringify(front, { lineWidth: 0 })}---\n\n${skill.instructions}\n`;
}
