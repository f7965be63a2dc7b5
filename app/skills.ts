/**
 * Skills, as the composition root builds them: the operator's SKILLS_DIR read once (a bad file stops the
 * start, naming it), the catalog over the store, the registrar of the skills' guild commands, and the
 * reader of an imported SKILL.md (Discord's CDN only, capped). `reconcile` brings every guild this
 * process holds in line at start-up: one GET for a guild whose commands are right already, and none for
 * a guild that never had a skill (unless the operator's skills are there for every server).
 */
import type { Client } from 'discord.js';
import type { Config } from '../src/config.js';
import { createAttachmentLoader } from '../src/discord/files/attachment-document.js';
import type { Rules } from '../src/discord/rules/rules.js';
import type { SkillServices } from '../src/discord/services.js';
import { createSkillCatalog } from '../src/discord/skills/skill-catalog.js';
import { createSkillCommands } from '../src/discord/skills/skill-commands.js';
import type { Logger } from '../src/logger.js';
import { loadSkillsDir, SKILL_MD_MAX_BYTES } from '../src/skills/index.js';
import type { Storage } from '../src/state/index.js';

export interface AppSkills extends SkillServices {
  /** Bring the skill commands of every guild the client holds (or of `guildIds`) in line: at start-up, and for a guild joined later. */
  reconcile(client: Client, guildIds?: readonly string[]): Promise<void>;
}

export async function openAppSkills(
  config: Config,
  parts: { storage: Storage; rules: Pick<Rules, 'at'>; builtIns: readonly string[]; cdnOrigins?: readonly string[]; logger: Logger },
): Promise<AppSkills> {
  const { storage, rules, logger } = parts;
  const builtIns = new Set(parts.builtIns);
  const operator = config.skills.dir ? await loadSkillsDir(config.skills.dir, { builtIns }) : [];
  if (operator.length) logger.info({ dir: config.skills.dir, skills: operator.map((s) => s.skill.name) }, "read the operator's skills (SKILLS_DIR)");
  const catalog = createSkillCatalog(storage.skills, operator);
  const commands = createSkillCommands({
    catalog,
    builtIns,
    access: (guildId) => rules.at({ guildId, channelId: guildId, categoryId: null, userId: '', roleIds: [] }).skillAccess(),
    logger,
  });
  const load = createAttachmentLoader({ maxFileBytes: SKILL_MD_MAX_BYTES, ...(parts.cdnOrigins ? { cdnOrigins: parts.cdnOrigins } : {}) });
  return {
    catalog,
    store: storage.skills,
    commands,
    builtIns,
    maxPerGuild: config.skills.maxPerGuild,
    fromAttachment: async (attachment) => (await load(attachment)).content,
    async reconcile(client, guildIds) {
      const held = guildIds ?? [...client.guilds.cache.keys()];
      const guilds = operator.length ? held : await storage.skills.guildsWithSkills(held).catch((error) => {
        logger.warn({ err: error }, 'could not read which guilds have skills; their commands are checked when a skill next changes');
        return [];
      });
      // One guild at a time: the REST limit is shared with everything else the bot does.
      for (const guildId of guilds) await commands.sync(client, guildId);
    },
  };
}
