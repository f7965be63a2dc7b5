/** Structured logs (pino). Every log line about a run carries its guild, thread and interaction ids. */
import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { app: 'threadwise' } }, destination);
}

/** A logger that drops everything (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
