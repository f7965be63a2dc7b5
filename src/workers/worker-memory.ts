/**
 * A worker process's resident memory (RSS), read from /proc on Linux, and a watch that samples it
 * while the worker reads. The V8 heap limit a worker is started with bounds only its JavaScript heap:
 * the buffers pdf.js decodes streams into live outside it (typed arrays), and one PDF took a reader
 * with a 512 MB heap limit to 2.9 GB. Sampling the process itself is what bounds all of it. Where there
 * is no /proc (macOS, Windows) the reading is undefined and only the heap limit applies.
 */
import fs from 'node:fs';

/** How often the watch samples: fast enough that a decoder filling memory is caught within tens of MB. */
export const SAMPLE_MS = 25;

/** The process's resident memory in bytes, or undefined (no /proc, or the process is gone). */
export function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** A running watch: `stop()` ends it and says the highest resident memory it saw. */
export interface MemoryWatch {
  stop(): number | undefined;
}

/** Sample `pid` every SAMPLE_MS; `onOver` is called once, the first time it holds more than `limitBytes`. */
export function watchMemory(pid: number | undefined, limitBytes: number, onOver: (bytes: number) => void): MemoryWatch {
  let peak: number | undefined;
  let over = false;
  let stopped = false;
  const sample = () => {
    const bytes = residentBytes(pid);
    if (bytes === undefined) return;
    peak = Math.max(peak ?? 0, bytes);
    if (bytes > limitBytes && !over && !stopped) {
      over = true;
      onOver(bytes);
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  // The host must not stay up for a sampler alone.
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      stopped = true;
      sample();
      return peak;
    },
  };
}
