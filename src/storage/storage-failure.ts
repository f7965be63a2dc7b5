/**
 * Storage failures worded for the person who reads them: what failed, where, and what to do. Every
 * store family and every backend reports through here, so a locked SQLite file, an unreachable server
 * or a timed-out write reads the same whichever store hit it.
 */
import { StorageError, describeError } from '../errors.js';

/**
 * Turn a backend failure into a StorageError that says what failed, where, and what to do. A timeout
 * is worded as "may or may not have been applied", because the command may have reached the server.
 * `kind` is the backend's kind as its folder declares it (it only names the backend in the message).
 */
export function storageFailure(kind: string, where: string, action: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const detail = describeError(error);
  const code = (error as { code?: unknown } | null)?.code;
  let advice: string;
  if (code === 'SQLITE_BUSY' || /SQLITE_BUSY|database is locked/i.test(detail)) {
    advice = 'The SQLite file is locked by another process. Nothing was written; try again, or stop the other process.';
  } else if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|client is closed|offline|not connected|failed to connect/i.test(detail)) {
    advice = `Cannot reach the ${kind} server. Nothing was written; check that it runs and that KEYV_URL is right.`;
  } else if (/timeout|timed out/i.test(detail)) {
    advice = `The ${kind} server did not answer in time. If this was a write, it may or may not have been applied.`;
  } else if (/socket closed|ECONNRESET|EPIPE|connection terminated/i.test(detail)) {
    advice = `The connection to the ${kind} server dropped. If this was a write, it may or may not have been applied.`;
  } else {
    advice = 'The call did not complete; see the cause above.';
  }
  return new StorageError(`Storage ${action} failed on ${kind} (${where}): ${detail}. ${advice}`, { cause: error });
}

/** Run one backend call, converting any failure with `storageFailure`. */
export async function guarded<T>(kind: string, where: string, action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storageFailure(kind, where, action, error);
  }
}

/**
 * Run a call of the knowledge index or the thread index (KNOWLEDGE_URL's database), turning any failure
 * into a StorageError that says what and where; their advice names KNOWLEDGE_URL, not KEYV_URL.
 */
export async function guardedCall<T>(kind: string, where: string, action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof StorageError) throw error;
    const detail = describeError(error);
    let advice = 'Nothing was changed; see the cause.';
    if (/SQLITE_BUSY|database is locked/i.test(detail)) advice = 'The SQLite file is locked by another process; nothing was written. Try again.';
    else if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|timeout|terminated/i.test(detail)) advice = `Cannot reach the ${kind} server; check that it runs and that KNOWLEDGE_URL (or KEYV_URL) is right.`;
    throw new StorageError(`Knowledge base ${action} failed on ${kind} (${where}): ${detail}. ${advice}`, { cause: error });
  }
}
