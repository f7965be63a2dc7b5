/**
 * Every command (slash and context menu), and every interaction the bot answers, in explicit lists (the
 * compiler checks them; no folder scanning). `commands` is what Discord registers; `interactions` is
 * what the bot routes: the commands (with the buttons and modals each puts up), then the buttons the
 * bot puts under its runs, then the route of each guild's own commands (its skills).
 */
import { approvalButtons } from '../src/discord/buttons/approval.js';
import type { AnyCommand } from '../src/discord/command.js';
import { continueButton } from '../src/discord/buttons/continue.js';
import type { InteractionEntry } from '../src/discord/interactions.js';
import { stopButton } from '../src/discord/buttons/stop.js';
import { ask } from './ask.js';
import { askAbout } from './ask-about.js';
import { exportCommand } from './export.js';
import { feedback } from './feedback.js';
import { help } from './help.js';
import { kb } from './kb.js';
import { memory } from './memory.js';
import { memoryForgetButton } from '../src/discord/buttons/memory-forget.js';
import { voteButtons, voteReasonModal } from '../src/discord/buttons/vote.js';
import { addToKnowledgeBase } from './kb-message.js';
import { reset } from './reset.js';
import { schedule } from './schedule.js';
import { settings } from './settings.js';
import { skill } from './skill.js';
import { skillCommandRoute } from './skill-run.js';
import { tools } from './tools.js';
import { usage } from './usage.js';

export const commands: readonly AnyCommand[] = [ask, reset, help, usage, memory, tools, settings, exportCommand, feedback, kb, schedule, skill, askAbout, addToKnowledgeBase];

// Last, the one route of a guild's own commands (its skills), whose names no list can hold.
export const interactions: readonly InteractionEntry[] = [...commands, stopButton, continueButton, approvalButtons, memoryForgetButton, voteButtons, voteReasonModal, skillCommandRoute];
