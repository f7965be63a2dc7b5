/**
 * node-redis's own command timeout stops counting once a command is on the wire, so a server that stops
 * answering would hang a call: every Redis call of every family is also raced against its bound here.
 */

/** `promise`, or a rejection with `message` after `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message = `timed out after ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
