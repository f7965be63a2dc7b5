/** Every slash command, in one explicit list (the compiler checks it; no folder scanning). */
import type { Command } from '../src/discord/command.js';
import { ask } from './ask.js';
import { help } from './help.js';
import { reset } from './reset.js';
import { settings } from './settings.js';
import { tools } from './tools.js';

export const commands: readonly Command[] = [ask, reset, help, tools, settings];
