/** Tiny statistics and table helpers for the benchmarks. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

export interface BenchSection {
  name: string;
  rows: Array<Record<string, string | number>>;
  notes?: string[];
}

/** Print a section as a markdown table, ready to paste into the README. */
export function printSection(section: BenchSection): void {
  console.log(`\n### ${section.name}\n`);
  const first = section.rows[0];
  if (first) {
    const cols = Object.keys(first);
    console.log(`| ${cols.join(' | ')} |`);
    console.log(`| ${cols.map(() => '---').join(' | ')} |`);
    for (const row of section.rows) console.log(`| ${cols.map((c) => String(row[c] ?? '')).join(' | ')} |`);
  }
  for (const note of section.notes ?? []) console.log(`\n${note}`);
}
