/**
 * Runs async work one at a time per key, in call order, inside this process. The stores use it so that
 * appends to one thread land in the order they were made and a guild's settings are never updated by
 * two read-modify-writes at once; SQLite's write gate (sqlite-gate.ts), so that one file has one writer. It is not a user-facing queue (see ThreadQueue for bounded waits):
 * every call here is a short storage operation that already has its own timeouts.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Run `work` after every earlier call with the same key has settled. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget idle keys so a bot that has seen a million threads does not keep a million entries.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
