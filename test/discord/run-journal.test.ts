import { describe, expect, it } from 'vitest';
import { RunRegistry } from '../../src/discord/runs/run-registry.js';
import { INTERRUPTED_NOTE, RunJournal, deadRuns, type RecoveryActions } from '../../src/discord/runs/run-journal.js';
import { silentLogger } from '../../src/logger.js';
import { createStorage, type Storage } from '../../src/state/index.js';

/** Recovery actions that record what they were asked to do. */
function recordingActions(failOn?: string): RecoveryActions & { calls: string[] } {
  const calls: string[] = [];
  const record = async (call: string) => {
    calls.push(call);
    if (failOn && call.startsWith(failOn)) throw new Error('404 Unknown Channel');
  };
  return {
    calls,
    disableStop: (channelId, messageId, runId, keep) => record(`${keep ? 'disable' : 'remove'} ${channelId}/${messageId} ${runId}`),
    appendNote: (channelId, messageId, note) => record(`note ${channelId}/${messageId} ${note}`),
    post: (channelId, content) => record(`post ${channelId} ${content}`),
  };
}

async function memoryStorage(): Promise<Storage> {
  return createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000 }, { logger: () => undefined });
}

/** A process's journal and registry over `storage`, with recovery done (nothing to recover). */
async function processOver(storage: Storage, ids: string[]) {
  const journal = new RunJournal(storage.runJournal('main'), silentLogger());
  const runs = new RunRegistry({ observer: journal, newId: () => ids.shift()! });
  await journal.recover(recordingActions());
  return { journal, runs };
}

describe('the run journal', () => {
  it('lets the next process find the runs that never ended, and tidy them up once', async () => {
    const storage = await memoryStorage();
    const first = await processOver(storage, ['run-a', 'run-b', 'run-c']);
    const a = first.runs.start({ threadId: 't1', starterId: 'u', reply: { channelId: 'general', messageId: 't1' } });
    a.run.onMessage('t1', 'log-1');
    a.run.onMessage('t1', 'log-2'); // the log rolled over: the button moved to the newer message
    const b = first.runs.start({ threadId: 't2', starterId: 'u' });
    b.run.onMessage('t2', 'log-3');
    const c = first.runs.start({ threadId: 't3', starterId: 'u' });
    c.finish(); // ended normally: nothing to tidy
    await first.journal.flush();
    // The process dies here: a and b never end.

    const second = new RunJournal(storage.runJournal('main'), silentLogger());
    const actions = recordingActions();
    expect(await second.recover(actions)).toBe(2);
    expect(actions.calls).toEqual([
      'remove t1/log-1 run-a',
      'disable t1/log-2 run-a',
      `note general/t1 -# ${INTERRUPTED_NOTE}`,
      'disable t2/log-3 run-b',
      // A follow-up's run has no reply of its own: the thread is told.
      `post t2 ${INTERRUPTED_NOTE}`,
    ]);
    const third = new RunJournal(storage.runJournal('main'), silentLogger());
    const again = recordingActions();
    expect(await third.recover(again)).toBe(0);
    expect(again.calls).toEqual([]);
    await storage.close();
  });

  it('never takes its own process\'s runs for dead ones, and empties itself when nothing runs', async () => {
    const storage = await memoryStorage();
    const journal = new RunJournal(storage.runJournal('main'), silentLogger());
    const runs = new RunRegistry({ observer: journal, newId: () => 'live' });
    // A run starts before recovery has looked (interactions arrive as soon as the bot is ready).
    const live = runs.start({ threadId: 't9', starterId: 'u' });
    const actions = recordingActions();
    expect(await journal.recover(actions)).toBe(0);
    await journal.flush();
    expect((await storage.runJournal('main').read()).entries.map((e) => e.entry.kind)).toEqual(['start']);
    live.finish();
    await journal.flush();
    expect((await storage.runJournal('main').read()).entries).toEqual([]);
    await storage.close();
  });

  it('keeps the journal while one run is still in flight after the other ends, so a crash then still finds it', async () => {
    const storage = await memoryStorage();
    const first = await processOver(storage, ['run-1', 'run-2']);
    const one = first.runs.start({ threadId: 't1', starterId: 'u' });
    const two = first.runs.start({ threadId: 't2', starterId: 'u', reply: { channelId: 'general', messageId: 't2' } });
    two.run.onMessage('t2', 'log-2');
    one.finish(); // one run left in flight: the journal must keep it
    await first.journal.flush();
    expect((await storage.runJournal('main').read()).entries.map((e) => `${e.entry.kind} ${e.entry.runId}`)).toEqual(['start run-1', 'start run-2', 'message run-2', 'end run-1']);
    // The process dies with run-2 in flight.
    const actions = recordingActions();
    expect(await new RunJournal(storage.runJournal('main'), silentLogger()).recover(actions)).toBe(1);
    expect(actions.calls).toEqual(['disable t2/log-2 run-2', `note general/t2 -# ${INTERRUPTED_NOTE}`]);
    await storage.close();
  });

  it('tells the thread when the reply cannot be edited, and keeps going past runs it cannot tidy', async () => {
    const storage = await memoryStorage();
    const first = await processOver(storage, ['x', 'y']);
    first.runs.start({ threadId: 'gone', starterId: 'u', reply: { channelId: 'general', messageId: 'gone' } }).run.onMessage('gone', 'log-x');
    first.runs.start({ threadId: 't2', starterId: 'u', reply: { channelId: 'general', messageId: 't2' } }).run.onMessage('t2', 'log-y');
    await first.journal.flush();
    const actions = recordingActions('note general/gone');
    expect(await new RunJournal(storage.runJournal('main'), silentLogger()).recover(actions)).toBe(2);
    expect(actions.calls).toContain(`post gone ${INTERRUPTED_NOTE}`);
    expect(actions.calls).toContain(`note general/t2 -# ${INTERRUPTED_NOTE}`);
    await storage.close();
  });

  it('reads runs from start, message and end entries, whatever process wrote them', () => {
    const runs = deadRuns([
      { v: 1, kind: 'start', boot: 'p1', runId: 'r', threadId: 't', at: 1 },
      { v: 1, kind: 'start', boot: 'p2', runId: 'r', threadId: 'u', at: 2 },
      { v: 1, kind: 'message', boot: 'p2', runId: 'r', channelId: 'u', messageId: 'm' },
      { v: 1, kind: 'end', boot: 'p1', runId: 'r' },
    ]);
    expect(runs).toEqual([{ runId: 'r', threadId: 'u', messages: [{ channelId: 'u', messageId: 'm' }] }]);
  });
});
