/**
 * The identify lock family: a bucket's turn to log in (a gateway IDENTIFY), claimed in a store every
 * process and host of the bot shares. Backends that are shared declare `identifyLock` and implement it
 * in their folder; src/state/identify-lock.ts spaces the shards' logins with it.
 */

/** A claim on one bucket's turn: true when this caller got it (and holds it for `ms`). */
export interface IdentifyLock {
  claim(bucket: number, ms: number): Promise<boolean>;
  close(): Promise<void>;
}
