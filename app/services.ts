/**
 * What the bot hands its handlers, assembled from the parts: the six groups of `BotServices`
 * (src/discord/services.ts), each from the part that owns it. Nothing is decided here; a getter keeps
 * the tool list live, because MCP servers add and change tools while the bot runs.
 */
import type { Config } from '../src/config.js';
import type { Core } from '../src/core.js';
import { PendingAsks } from '../src/discord/pending-asks.js';
import type { Rules } from '../src/discord/rules/rules.js';
import { OneTimeClaims } from '../src/discord/runs/one-time-claims.js';
import type { RunRegistry } from '../src/discord/runs/run-registry.js';
import type { BotServices, RuleServices, ScheduleServices } from '../src/discord/services.js';
import type { Turns } from '../src/discord/turn/pipeline.js';
import type { Logger } from '../src/logger.js';
import type { ChannelDefaults } from '../src/policy/index.js';
import type { Storage, ThreadQueue, UsageLimiter } from '../src/state/index.js';
import type { AppKnowledge } from './knowledge.js';
import type { AppThreads } from './memory.js';
import type { AppSkills } from './skills.js';

export interface ServiceParts {
  core: Core;
  storage: Storage;
  turns: Turns;
  runs: RunRegistry;
  queue: ThreadQueue;
  threads?: AppThreads;
  rules: Rules & { channelDefaults: ChannelDefaults };
  skills: AppSkills;
  limiter: UsageLimiter;
  knowledge?: AppKnowledge;
  schedules: ScheduleServices;
  logger: Logger;
  now: () => Date;
}

export function assembleServices(config: Config, parts: ServiceParts): BotServices {
  const { core, storage, rules, now } = parts;
  const ruleServices: RuleServices = {
    ...rules,
    get tools() {
      return core.engine.tools;
    },
    serverModels: core.serverModels,
    outside: { refused: () => core.mcp.refused(), blocked: () => core.mcp.blocked(), protection: () => core.mcp.protection() },
    skills: parts.skills,
  };
  return {
    turns: {
      ...parts.turns,
      runs: parts.runs,
      queue: parts.queue,
      conversations: storage.conversations,
      claims: new OneTimeClaims(),
      pendingAsks: new PendingAsks({ now: () => now().getTime() }),
      memory: { store: storage.memberMemory, threads: parts.threads?.index },
      feedback: storage.feedback,
    },
    rules: ruleServices,
    usage: { limiter: parts.limiter, defaultLimits: config.governance.limits },
    knowledge: parts.knowledge?.services,
    runtime: { logger: parts.logger, now, messageContent: config.discord?.messageContent ?? false, replyChainMax: config.governance.replyChainMax },
    schedules: parts.schedules,
  };
}
