/** Every command (slash and context menu), in one explicit list (the compiler checks it; no folder scanning). */
import type { AnyCommand } from '../src/discord/command.js';
import { ask } from './ask.js';
import { askAbout } from './ask-about.js';
import { exportCommand } from './export.js';
import { help } from './help.js';
import { kb } from './kb.js';
import { addToKnowledgeBase } from './kb-message.js';
import { reset } from './reset.js';
import { settings } from './settings.js';
import { tools } from './tools.js';
import { usage } from './usage.js';

export const commands: readonly AnyCommand[] = [ask, reset, help, usage, tools, settings, exportCommand, kb, askAbout, addToKnowledgeBase];
