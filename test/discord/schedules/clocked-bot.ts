/**
 * The bot as its own process, as `npm start` runs it (the same configuration from the environment, the
 * same composition root), except that the scheduler's clock is moved over stdin: a line `tick <ms>`
 * sets the clock, ticks the scheduler, waits for the runs it started, and prints
 * `{"msg":"clock ticked","at":<ms>,"claimed":[…]}`. The clock starts at TEST_CLOCK_START_MS, and the
 * start-up tick (what was missed while the bot was down) is reported the same way. SIGTERM stops it
 * cleanly; SIGKILL is what a crash looks like.
 */
import readline from 'node:readline';
import { startApp } from '../../../app/app.js';
import { loadConfigOrReport } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import type { SchedulerClock, TickReport } from '../../../src/discord/schedules/scheduler.js';

let now = Number(process.env.TEST_CLOCK_START_MS);
if (!Number.isFinite(now)) throw new Error('TEST_CLOCK_START_MS must be set');
const clock: SchedulerClock = { now: () => now, at: () => () => undefined };
const config = loadConfigOrReport({ needDiscord: true });
if (!config) process.exit(1);
delete process.env.SHARDS;
const logger = createLogger(config.logLevel);
const app = await startApp(config, logger, { schedulerClock: clock });
const report = (r: TickReport) => console.log(JSON.stringify({ msg: 'clock ticked', at: r.atMs, claimed: r.claimed, taken: r.taken }));

report(await app.scheduled);
await app.scheduler.idle();
console.log(JSON.stringify({ msg: 'start-up runs done' }));

let queue = Promise.resolve();
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const match = /^tick (\d+)$/.exec(line.trim());
  if (!match) return;
  queue = queue.then(async () => {
    now = Number(match[1]);
    const r = await app.scheduler.tick();
    await app.scheduler.idle();
    report(r);
  });
});
process.on('SIGTERM', () => void app.stop().finally(() => process.exit(0)));
