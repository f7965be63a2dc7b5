/** A readable picture of the fake's state for timeout errors: sessions, interactions, messages, REST calls, last events. */
import type { FakeCore } from './core.js';
import { MessageFlag } from './records.js';
import { describeEvent } from './events.js';

export function dumpState(core: FakeCore): string {
  const lines: string[] = ['--- fake-discord state ---'];
  const sessions = core.gateway ? [...core.gateway.sessions.values()] : [];
  lines.push(`gateway sessions: ${sessions.map((s) => `${s.id} intents=${s.intents} open=${s.socket !== null}`).join(', ') || 'none'}`);
  for (const i of core.interactions.values()) {
    lines.push(`interaction ${i.id} ${i.commandName ?? i.customId ?? ''} acked=${i.acknowledged}(type ${i.ackType}) expired=${i.expired} callbacks=${i.callbacks.map((c) => `${c.type}→${c.status}`).join(',')}`);
  }
  for (const c of core.world.channels.values()) {
    const msgs = core.world.messagesIn(c.id);
    if (msgs.length === 0 && !c.thread) continue;
    lines.push(`#${c.name} (${c.id}${c.thread ? `, thread of ${c.parentId}, archived=${c.thread.archived} locked=${c.thread.locked}` : ''}):`);
    for (const m of msgs.slice(-15)) {
      lines.push(`  ${m.id} ${m.authorId === core.botId ? 'bot' : m.authorId}${m.deleted ? ' [deleted]' : ''}${m.flags & MessageFlag.Loading ? ' [loading]' : ''}: ${JSON.stringify(m.content.slice(0, 100))}${m.attachments.length ? ` +${m.attachments.length} files` : ''}`);
    }
  }
  lines.push(`REST calls: ${[...core.restCounts].map(([r, n]) => `${r}×${n}`).join(', ') || 'none'}`);
  lines.push('last events:', ...core.events.events.slice(-20).map((e) => `  ${describeEvent(e)}`));
  return lines.join('\n');
}
