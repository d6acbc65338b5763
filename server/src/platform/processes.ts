// Whether a process of this machine still runs: the answer journal (billing/paid-call/answer-journal.ts) asks
// it of the processes whose journal files it finds, the embedded database's lock (start.ts) of the
// process that holds it. A pid alone is not enough: a restarted container's process is pid 1 again.
import { existsSync, readFileSync } from 'node:fs';

/** Whether a process has the pid (EPERM: one of another user's). */
export const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Linux: when the process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat),
 * 'gone' when no live process has the pid (a zombie is gone), null where /proc cannot say.
 */
export function processStart(pid: number | 'self'): string | 'gone' | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ESRCH' ? (existsSync('/proc/self/stat') ? 'gone' : null) : null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return 'gone';
  const ticks = Number(fields[19]);
  return Number.isSafeInteger(ticks) ? ticks.toString(36) : null;
}
