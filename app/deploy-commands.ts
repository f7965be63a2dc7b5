/**
 * `npm run deploy-commands`: register the slash commands with Discord, to DISCORD_GUILD_ID when set
 * (instant) or globally (Discord may take up to an hour to show them everywhere), and say what it did.
 */
import { REST, Routes, type RESTGetCurrentApplicationResult } from 'discord.js';
import { loadConfigOrReport } from '../src/config.js';
import { describeStartupError } from '../src/discord/startup-errors.js';
import { commands } from '../commands/index.js';
import { isMessageCommand } from '../src/discord/command.js';

async function main(): Promise<number> {
  // Registering commands talks to Discord only: no model server settings needed.
  const config = loadConfigOrReport({ needDiscord: true, needModel: false });
  if (!config) return 1;
  const discord = config.discord!;
  const rest = new REST(discord.apiBaseUrl ? { api: discord.apiBaseUrl.replace(/\/+$/, '') } : {}).setToken(discord.token);
  const applicationId = discord.applicationId ?? ((await rest.get(Routes.currentApplication())) as RESTGetCurrentApplicationResult).id;
  const body = commands.map((c) => c.data.toJSON());
  const names = commands.map((c) => (isMessageCommand(c) ? `Apps → ${c.data.name}` : `/${c.data.name}`)).join(', ');
  if (discord.guildId) {
    await rest.put(Routes.applicationGuildCommands(applicationId, discord.guildId), { body });
    console.log(`Registered ${body.length} commands (${names}) in server ${discord.guildId}. They are available now.`);
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
