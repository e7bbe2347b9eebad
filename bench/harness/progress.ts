// Progress lines on stderr (stdout stays free for whoever pipes the run).

export interface Progress {
  /** A line about the run as a whole. */
  note(message: string): void;
  /** A line about one suite's work, prefixed with the suite name. */
  step(suite: string, message: string): void;
}

export function stderrProgress(startedAtNs: bigint = process.hrtime.bigint()): Progress {
  const elapsed = (): string => `${(Number(process.hrtime.bigint() - startedAtNs) / 1e9).toFixed(1)}s`;
  return {
    note(message) {
      process.stderr.write(`[bench ${elapsed()}] ${message}\n`);
    },
    step(suite, message) {
      process.stderr.write(`[bench ${elapsed()}] ${suite}: ${message}\n`);
    },
  };
}

/** A progress sink that prints nothing (for callers that run cases quietly). */
export const silentProgress: Progress = {
  note() {},
  step() {},
};
