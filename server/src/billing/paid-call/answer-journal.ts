// The journal of answered calls (decisions 0039 and 0042). A paid call answered before its
// settlement commits is written here first, so a crash of this process leaves it owed by its lease,
// not free. The first write is a line appended to this process's journal file: one write(2) for the
// calls answered in one turn of the event loop (decision 0052), with no round trip to PostgreSQL on
// the answer's path, and a kill -9 of the process leaves it behind in the kernel's page cache. A
// call whose settlement has not committed COPY_AFTER_MS later (a row lock stalls it, PostgreSQL is
// slow; ANSWER_JOURNAL_COPY_AFTER_MS) is copied to answered_calls, where every process on the
// database sees it; under normal load the settlement commits first and nothing is copied.
//
// The files of a process that died are read by the next sweep of any process on this machine that
// shares the database (they live in one directory per database, shared by its processes here, or
// ANSWER_JOURNAL_DIR), which copies their calls to answered_calls; from there the calls are charged
// from the dead process's hold exactly as before (settlement-recovery.ts). A call
// answered in its last COPY_AFTER_MS by a process whose journal directory is never read again
// before its hold expires (its machine is gone) goes free: decision 0042 weighs this against the
// round trip.
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import type { Database } from '../../db/client.ts';
import { processAlive, processStart } from '../../platform/processes.ts';
import { COPY_ANSWERED_CALLS_SQL, DATABASE_IDENTITY_SQL, DELETE_ANSWERED_CALLS_SQL, EMBEDDED_COPY_ANSWERED_CALLS_SQL } from './queries.ts';
import type { Settlement } from './settlement-sql.ts';

/** How long an answered call waits for its settlement commit before it is copied to answered_calls (ANSWER_JOURNAL_COPY_AFTER_MS). */
const COPY_AFTER_MS = 100;
/** A journal file that grew past this is followed by a new one; the old goes once its calls are settled. */
const ROTATE_BYTES = 8 * 1024 * 1024;
const COPY_BATCH = 256;

interface JournalFile {
  name: string;
  fd: number;
  bytes: number;
  /** Calls written to it whose settlement is not done yet. */
  pending: number;
  /** Closed for writing: a newer file took over. */
  rotated: boolean;
}

interface Entry {
  settlement: Settlement;
  file: JournalFile;
  at: number;
  copy: 'no' | 'copying' | 'copied';
  done: boolean;
}

export interface AnswerJournal {
  /**
   * Writes the call to the journal, with the other calls recorded in this turn of the event loop;
   * once it resolves, a crash of this process leaves it owed. Rejects when the file cannot be written.
   */
  record(settlement: Settlement): Promise<void>;
  /** The call's settlement committed ('settled'), or it goes free ('free'): the journal no longer owes it. */
  done(invocationId: string, outcome: 'settled' | 'free'): void;
  /** Copies to answered_calls the calls journaled by processes of this machine that died (every other process's with `all`). */
  importDead(options?: { all?: boolean }): Promise<number>;
  /** Stops copying; removes this process's files when nothing in them is owed. */
  close(): Promise<void>;
  readonly directory: string;
  /** How many journaled calls wait for their settlement, and when the oldest was journaled (performance.now()); for metrics. */
  figures(): { calls: number; oldestAt: number | null };
}

/**
 * The directory of a database's journal files: one per database (its random identity, migration
 * 0039, and name), under ANSWER_JOURNAL_DIR, else beside an embedded database's files, else the
 * machine's temporary directory, so every process of this machine on the database shares it.
 */
export async function answerJournalDirectory(
  db: Database,
  options: {
    base?: string | null;
    dataDir?: string | null;
    /** The machine's temporary directory (tests give their own). */
    tmp?: string;
  },
): Promise<string> {
  const identity = await db
    .query<{ id: string }>(DATABASE_IDENTITY_SQL)
    .then((result) => result.rows[0]?.id ?? null)
    .catch(() => null);
  const base = options.base ?? (options.dataDir ? path.join(options.dataDir, 'answered-calls') : temporaryBase(options.tmp ?? tmpdir()));
  // A database without the identity (migrations not run) gets a directory of its own.
  return path.join(base, (identity ?? `unshared-${process.pid}-${Date.now()}`).replace(/[^A-Za-z0-9_-]/g, '_'));
}

/**
 * The journal's base in the machine's temporary directory, which every user of the machine shares.
 * A base that another user made there, or a link one planted, would let them read the turns in the
 * journal, or write lines that a sweep then charges to callers. So the shared name is used only when
 * it is a directory of this user's, closed to the others (it is closed if it was open); else a name
 * with this user's id, checked the same way; else the server does not start.
 */
function temporaryBase(tmp: string): string {
  const uid = process.getuid?.();
  const own = (candidate: string) => {
    try {
      mkdirSync(candidate, { recursive: true, mode: 0o700 });
      const stat = lstatSync(candidate);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) return false;
      if ((stat.mode & 0o077) !== 0) chmodSync(candidate, 0o700);
      return true;
    } catch {
      return false;
    }
  };
  const shared = path.join(tmp, 'tollbooth-answered-calls');
  if (own(shared)) return shared;
  const mine = `${shared}-${uid ?? 'user'}`;
  if (own(mine)) return mine;
  throw new Error(`neither ${shared} nor ${mine} is a directory of this user's: set ANSWER_JOURNAL_DIR to one`);
}

/** This machine's name as it goes into a file name. */
const HOST = hostname().replace(/[^A-Za-z0-9_]/g, '_') || 'host';
/** This process's start as it goes into a file name: `p` and its start in ticks since boot where /proc says it, else `t` and the time. */
const START = (() => {
  const ticks = processStart('self');
  return typeof ticks === 'string' && ticks !== 'gone' ? `p${ticks}` : `t${Date.now().toString(36)}`;
})();

/**
 * Whether the process that writes a journal file is gone. Its name says where it ran
 * (`<host>.<pid>.<start>.<random>-<n>.jsonl`), and a live process touches its files every
 * `staleAfterMs / 6`. On this machine: a pid that is gone (or a zombie), or a pid whose process started at another
 * time than the file's writer (another process took the pid since, or a restarted container is pid
 * 1 again) is dead at once, and a writer whose pid and start match lives. Where the start cannot be
 * compared (no /proc, a file named before starts were), a pid that lives counts as the writer's
 * until its file is a third of `staleAfterMs` old. Another machine's file (a shared
 * ANSWER_JOURNAL_DIR) is dead once a third of `staleAfterMs` old, well before the holds of its calls
 * expire (`staleAfterMs` after their last renewal), so its calls are copied while a hold still owes them.
 */
function writerGone(name: string, own: string, staleAfterMs: number, modifiedAtMs: () => number): boolean {
  const [host, pidText, start] = name.split('.');
  const pid = Number(pidText);
  if (host === HOST && Number.isInteger(pid) && pid > 0) {
    if (pid === process.pid) return !name.startsWith(`${own}-`);
    const started = processStart(pid);
    if (started === 'gone') return true;
    if (started !== null && start?.startsWith('p')) return started !== start.slice(1);
    if (started === null && !processAlive(pid)) return true;
  }
  return Date.now() - modifiedAtMs() > staleAfterMs / 3;
}

type Line = { s: Settlement } | { free: string };

export function createAnswerJournal(
  db: Database,
  {
    directory,
    copyAfterMs = COPY_AFTER_MS,
    staleAfterMs = 90_000,
    onError = () => undefined,
  }: {
    directory: string;
    copyAfterMs?: number;
    /** The hold lifetime: a file its process has not touched for a third of it is a dead process's (writerGone). */
    staleAfterMs?: number;
    onError?: (error: unknown, message: string) => void;
  },
): AnswerJournal {
  const stamp = `${HOST}.${process.pid}.${START}.${Math.random().toString(36).slice(2, 8)}`;
  const entries = new Map<string, Entry>();
  /** This process's files not removed yet (touched every staleAfterMs / 6, so other processes know it lives). */
  const files = new Set<JournalFile>();
  let current: JournalFile | null = null;
  let sequence = 0;
  let closed = false;
  let copying: Promise<void> | null = null;
  /** Copied calls that settled meanwhile: their rows may have outlived the settlement's delete. */
  let orphans: string[] = [];

  const open = (): JournalFile => {
    // Only this user may read them: a line holds the call's turn (what the caller asked, the answer).
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    // A directory an earlier version made with the umask's modes (0755) is closed to others too.
    try {
      if ((statSync(directory).mode & 0o077) !== 0) chmodSync(directory, 0o700);
    } catch (error) {
      onError(error, 'closing the answer journal directory to other users failed');
    }
    const name = path.join(directory, `${stamp}-${sequence++}.jsonl`);
    const file: JournalFile = { name, fd: openSync(name, 'a', 0o600), bytes: 0, pending: 0, rotated: false };
    files.add(file);
    return file;
  };
  const retire = (file: JournalFile) => {
    if (file.pending > 0 || (!file.rotated && !closed)) return;
    files.delete(file);
    try {
      closeSync(file.fd);
      unlinkSync(file.name);
    } catch (error) {
      onError(error, 'removing a settled answer journal file failed');
    }
  };
  /** Writes all of `text` (a short write would leave a line cut in two): one write(2), and more only after a short one. */
  const writeText = (file: JournalFile, text: string) => {
    const written = writeSync(file.fd, text);
    const length = Buffer.byteLength(text);
    if (written < length) {
      const bytes = Buffer.from(text);
      for (let offset = written; offset < length; ) offset += writeSync(file.fd, bytes, offset);
    }
    file.bytes += length;
  };
  const write = (file: JournalFile, line: Line) => writeText(file, `${JSON.stringify(line)}\n`);
  /** The file new lines go to: a new one once the current one grew past ROTATE_BYTES. */
  const writable = (): JournalFile => {
    if (!current || current.bytes >= ROTATE_BYTES) {
      const previous = current;
      current = open();
      if (previous) {
        previous.rotated = true;
        retire(previous);
      }
    }
    return current;
  };

  // The lines of the calls answered in one turn of the event loop go out in one write(2), made in
  // the turn's check phase (setImmediate), before any of those answers is sent: under load one
  // turn answers tens of calls, and a write per call was 4 % of the gateway's CPU (decision 0052).
  let waiting: { text: string; settlement: Settlement }[] = [];
  let turn: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | null = null;
  const writeTurn = () => {
    const lines = waiting;
    const { resolve, reject } = turn!;
    waiting = [];
    turn = null;
    try {
      const file = writable();
      writeText(file, lines.length === 1 ? lines[0]!.text : lines.map((line) => line.text).join(''));
      const at = performance.now();
      for (const { settlement } of lines) {
        file.pending++;
        entries.set(settlement.invocationId, { settlement, file, at, copy: 'no', done: false });
      }
      resolve();
    } catch (error) {
      reject(error);
    }
  };

  const copy = async (batch: Entry[]) => {
    if (batch.length > 0) {
      try {
        await db.query(db.kind === 'pglite' ? EMBEDDED_COPY_ANSWERED_CALLS_SQL : COPY_ANSWERED_CALLS_SQL, [
          batch.map((entry) => entry.settlement.invocationId),
          batch.map((entry) => entry.settlement.charge?.hold.id ?? null),
          batch.map((entry) => entry.settlement.cost?.hold.id ?? null),
          batch.map((entry) => JSON.stringify(entry.settlement)),
        ]);
        for (const entry of batch) {
          entry.copy = 'copied';
          if (entry.done) orphans.push(entry.settlement.invocationId);
        }
      } catch (error) {
        for (const entry of batch) if (entry.copy === 'copying') entry.copy = 'no';
        onError(error, 'copying answered calls to answered_calls failed; they stay in the journal file');
      }
    }
    if (orphans.length > 0) {
      const ids = orphans;
      orphans = [];
      await db.query(DELETE_ANSWERED_CALLS_SQL, [ids]).catch((error: unknown) => {
        orphans.push(...ids);
        onError(error, 'removing settled calls from answered_calls failed');
      });
    }
  };
  /** Copies the calls older than `olderThanMs` whose settlement has not committed. */
  const copyOld = (olderThanMs: number): Promise<void> => {
    if (copying) return copying;
    const now = performance.now();
    const batch: Entry[] = [];
    for (const entry of entries.values()) {
      if (now - entry.at < olderThanMs) break;
      if (entry.copy === 'no') batch.push(entry);
      if (batch.length >= COPY_BATCH) break;
    }
    if (batch.length === 0 && orphans.length === 0) return Promise.resolve();
    for (const entry of batch) entry.copy = 'copying';
    copying = copy(batch).finally(() => {
      copying = null;
    });
    return copying;
  };
  const timer = setInterval(() => void copyOld(copyAfterMs), Math.min(copyAfterMs / 2, 1000));
  timer.unref();
  /** This process lives: its files say so to the other processes (writerGone), on a timer of its own, whatever the sweeps wait for. */
  const touch = () => {
    const now = new Date();
    for (const file of files) {
      try {
        utimesSync(file.name, now, now);
      } catch (error) {
        onError(error, 'touching an answer journal file failed');
      }
    }
  };
  const toucher = setInterval(touch, Math.max(100, staleAfterMs / 6));
  toucher.unref();

  return {
    directory,
    figures() {
      for (const entry of entries.values()) return { calls: entries.size, oldestAt: entry.at };
      return { calls: 0, oldestAt: null };
    },
    record(settlement) {
      if (closed) return Promise.reject(new Error('the answer journal is closed'));
      let text: string;
      try {
        text = `${JSON.stringify({ s: settlement } satisfies Line)}\n`;
      } catch (error) {
        return Promise.reject(error);
      }
      waiting.push({ text, settlement });
      if (!turn) {
        let resolve!: () => void;
        let reject!: (error: unknown) => void;
        const promise = new Promise<void>((yes, no) => {
          resolve = yes;
          reject = no;
        });
        turn = { promise, resolve, reject };
        setImmediate(writeTurn);
      }
      return turn.promise;
    },
    done(invocationId, outcome) {
      const entry = entries.get(invocationId);
      if (!entry) return;
      entries.delete(invocationId);
      entry.done = true;
      if (outcome === 'free') {
        // A call that went free must not be charged if this process dies before the file goes.
        try {
          write(entry.file, { free: invocationId });
        } catch (error) {
          onError(error, 'writing a call that went free to the answer journal failed');
        }
      } else if (entry.copy === 'copied') orphans.push(invocationId);
      entry.file.pending--;
      retire(entry.file);
    },
    async importDead({ all = false } = {}) {
      touch();
      let names: string[];
      try {
        names = readdirSync(directory).filter((name) => name.endsWith('.jsonl') && !name.startsWith(`${stamp}-`));
      } catch {
        return 0;
      }
      let imported = 0;
      for (const name of names) {
        const file = path.join(directory, name);
        try {
          if (!all && !writerGone(name, stamp, staleAfterMs, () => statSync(file).mtimeMs)) continue;
        } catch {
          continue; // another process took it
        }
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch {
          continue; // another process took it
        }
        const owed = new Map<string, Settlement>();
        for (const raw of text.split('\n')) {
          if (!raw) continue;
          let line: Line;
          try {
            line = JSON.parse(raw) as Line;
          } catch {
            continue; // a line cut short by the crash: its answer never went out
          }
          if ('free' in line) owed.delete(line.free);
          else owed.set(line.s.invocationId, line.s);
        }
        const calls = [...owed.values()];
        for (let index = 0; index < calls.length; index += COPY_BATCH) {
          const batch = calls.slice(index, index + COPY_BATCH);
          // Committed (not relaxed): the file goes right after.
          await db.query(EMBEDDED_COPY_ANSWERED_CALLS_SQL, [
            batch.map((settlement) => settlement.invocationId),
            batch.map((settlement) => settlement.charge?.hold.id ?? null),
            batch.map((settlement) => settlement.cost?.hold.id ?? null),
            batch.map((settlement) => JSON.stringify(settlement)),
          ]);
        }
        imported += calls.length;
        try {
          unlinkSync(file);
        } catch {
          // another process removed it after importing it too (the copy does nothing twice)
        }
      }
      return imported;
    },
    async close() {
      clearInterval(timer);
      clearInterval(toucher);
      closed = true;
      // Calls recorded in this turn are written before their answers go out, also now.
      await turn?.promise.catch(() => undefined);
      await copying;
      if (current) {
        current.rotated = true;
        retire(current);
      }
      try {
        rmdirSync(directory);
      } catch {
        // other processes' files are there
      }
    },
  };
}
