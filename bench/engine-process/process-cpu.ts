// The CPU time a process has used so far (user + system), read from /proc/<pid>/stat by any
// other process on the machine: how the benches charge the engine child's work to what it did.
// Linux only; the kernel counts in clock ticks of 1/100 s (USER_HZ, 100 on every Linux target).
import * as fs from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds of `pid` since it started (10 ms steps). */
export function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the fields after the command name (which may hold spaces) start after its closing parenthesis
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`/proc/${pid}/stat has no utime/stime`);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}
