/**
 * `npm run deploy-commands`: register the commands (slash and message menu) with Discord, to DISCORD_GUILD_ID when set
 * (instant) or globally (Discord may take up to an hour to show them everywhere), and say what it did. A
 * server's skills have guild commands the bot registered itself: a deploy to that server sends them back
 * with the built-ins (a bulk overwrite replaces the server's commands whole), so none is wiped.
 */
import { REST, Routes, type RESTGetCurrentApplicationResult } from 'discord.js';
import { loadConfigOrReport } from '../src/config.js';
import { describeStartupError } from '../src/discord/startup-errors.js';
import { commands } from '../commands/index.js';
import { commandLabel } from '../src/discord/command.js';
import { keptSkillCommands } from '../src/discord/skills/skill-commands.js';

async function main(): Promise<number> {
  // Registering commands talks to Discord only: no model server settings needed.
  const config = loadConfigOrReport({ needDiscord: true, needModel: false });
  if (!config) return 1;
  const discord = config.discord!;
  const rest = new REST(discord.apiBaseUrl ? { api: discord.apiBaseUrl.replace(/\/+$/, '') } : {}).setToken(discord.token);
  const applicationId = discord.applicationId ?? ((await rest.get(Routes.currentApplication())) as RESTGetCurrentApplicationResult).id;
  const body = commands.map((c) => c.data.toJSON());
  const names = commands.map(commandLabel).join(', ');
  if (discord.guildId) {
    const route = Routes.applicationGuildCommands(applicationId, discord.guildId);
    const existing = (await rest.get(route, { query: new URLSearchParams({ with_localizations: 'true' }) })) as Array<Record<string, unknown>>;
    const kept = keptSkillCommands(existing, body);
    await rest.put(route, { body: [...body, ...kept] });
    const skills = kept.length ? ` The server's ${kept.length} skill command${kept.length === 1 ? ' was' : 's were'} kept.` : '';
    console.log(`Registered ${body.length} commands (${names}) in server ${discord.guildId}. They are available now.${skills}`);
  } else {
    await rest.put(Routes.applicationCommands(applicationId), { body });
    console.log(`Registered ${body.length} commands (${names}) globally. Discord may take up to an hour to show them in every server; set DISCORD_GUILD_ID for instant registration while testing.`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Could not register the commands: ${describeStartupError(error)}`);
    process.exit(1);
  },
);
