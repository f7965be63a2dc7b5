/**
 * Progress while an evaluation runs, on stderr so stdout stays the results: a bar redrawn in place on a
 * terminal, a plain line every `every` runs (and at the end) when stderr is a file or a pipe.
 */
import type { CaseStatus } from './run-case.js';

export interface ProgressOutput {
  write(text: string): void;
  isTTY?: boolean;
}

const BAR_WIDTH = 24;

export class Progress {
  private done = 0;
  private readonly counts: Record<CaseStatus, number> = { pass: 0, fail: 0, error: 0 };

  constructor(
    private readonly out: ProgressOutput,
    private readonly total: number,
    private readonly every = 10,
  ) {}

  /** One run ended with `status`. */
  tick(status: CaseStatus): void {
    this.done++;
    this.counts[status]++;
    if (this.out.isTTY) {
      const filled = Math.round((this.done / this.total) * BAR_WIDTH);
      this.out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${this.line()}${this.done === this.total ? '\n' : ''}`);
    } else if (this.done % this.every === 0 || this.done === this.total) {
      this.out.write(`${this.line()}\n`);
    }
  }

  private line(): string {
    const { pass, fail, error } = this.counts;
    return `${this.done}/${this.total} runs: ${pass} passed, ${fail} failed, ${error} error${error === 1 ? '' : 's'}`;
  }
}
