// The answer journal's file (decisions 0042 and 0052), on both databases: a call is in the file as
// soon as record() resolves, written with the other calls of its turn of the event loop; a late one is copied to answered_calls; a call that went free is never copied,
// not even from the file of a process that died; a dead process's file is read once and removed.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.ts';
import { answerJournalDirectory, createAnswerJournal } from './answer-journal.ts';
import type { Settlement } from './settlement-sql.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
}, 60_000);
afterAll(() => database?.cleanup());

const settlement = (): Settlement => ({
  invocationId: randomUUID(),
  appId: randomUUID(),
  ownerId: randomUUID(),
  callerId: randomUUID(),
  apiKeyId: null,
  endUser: 'someone',
  mode: 'completion',
  latencyMs: 3,
  inputTokens: 1,
  outputTokens: 2,
  priceCents: 1,
  model: 'gpt-4',
  provider: 'openai',
  modelCostMicros: 0,
  createdAt: new Date(),
  ledgerTransactionId: randomUUID(),
  description: 'Call',
  charge: { hold: { id: randomUUID(), accountId: randomUUID(), amountCents: 1, apiKeyId: null, spendMonth: null } as never, feeCents: 0 },
  cost: null,
  turn: null,
});

const journaledIds = async () => (await database.db.query<{ id: string }>('SELECT id FROM answered_calls ORDER BY id')).rows.map((row) => row.id);

describe('the answer journal', () => {
  it('names one directory per database, the same for every process on it', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'journal-base-'));
    const first = await answerJournalDirectory(database.db, { base });
    expect(await answerJournalDirectory(database.db, { base })).toBe(first);
    const other = await createTestDatabase();
    try {
      expect(await answerJournalDirectory(other.db, { base })).not.toBe(first);
    } finally {
      await other.cleanup();
    }
  });

  it.runIf(process.platform !== 'win32')("uses the temporary directory's shared base only when it is this user's directory, closed to others", async () => {
    const uid = process.getuid!();
    // Left open by an earlier version: it is this user's, so it is closed and used.
    const open = mkdtempSync(path.join(tmpdir(), 'journal-tmp-'));
    mkdirSync(path.join(open, 'tollbooth-answered-calls'));
    chmodSync(path.join(open, 'tollbooth-answered-calls'), 0o777);
    expect(path.dirname(await answerJournalDirectory(database.db, { tmp: open }))).toBe(path.join(open, 'tollbooth-answered-calls'));
    expect(statSync(path.join(open, 'tollbooth-answered-calls')).mode & 0o777).toBe(0o700);
    // A link planted under the shared name (to a directory its planter can read): not followed.
    const planted = mkdtempSync(path.join(tmpdir(), 'journal-tmp-'));
    symlinkSync(mkdtempSync(path.join(tmpdir(), 'journal-elsewhere-')), path.join(planted, 'tollbooth-answered-calls'));
    const linked = await answerJournalDirectory(database.db, { tmp: planted });
    expect(path.dirname(linked)).toBe(path.join(planted, `tollbooth-answered-calls-${uid}`));
    expect(lstatSync(path.dirname(linked)).isSymbolicLink()).toBe(false);
    if (uid === 0) {
      // Made by another user (root can make one here): this user's own base instead.
      const taken = mkdtempSync(path.join(tmpdir(), 'journal-tmp-'));
      mkdirSync(path.join(taken, 'tollbooth-answered-calls'), { mode: 0o700 });
      chownSync(path.join(taken, 'tollbooth-answered-calls'), 65534, 65534);
      expect(path.dirname(await answerJournalDirectory(database.db, { tmp: taken }))).toBe(path.join(taken, 'tollbooth-answered-calls-0'));
      // And when that one is another user's too, the server says so rather than use it.
      mkdirSync(path.join(taken, 'tollbooth-answered-calls-0'), { recursive: true });
      chownSync(path.join(taken, 'tollbooth-answered-calls-0'), 65534, 65534);
      await expect(answerJournalDirectory(database.db, { tmp: taken })).rejects.toThrow(/ANSWER_JOURNAL_DIR/);
    }
  });

  it('copies late calls, never one that went free, and reads the file a dead process left once', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'journal-'));
    const dying = createAnswerJournal(database.db, { directory, copyAfterMs: 3_600_000 });
    const [settled, free, owed] = [settlement(), settlement(), settlement()];
    await Promise.all([settled, free, owed].map((call) => dying.record(call)));
    // In the file at once; nothing in the database yet (the copy is not due).
    expect(readdirSync(directory).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1);
    expect(await journaledIds()).toEqual([]);
    dying.done(free.invocationId, 'free');
    dying.done(settled.invocationId, 'settled');

    // The process "dies" (its journal is never closed); another one reads its file. (A settled
    // call in it is not copied either: its invocation exists, which the crash tests cover.)
    const survivor = createAnswerJournal(database.db, { directory });
    try {
      const imported = await survivor.importDead({ all: true });
      // The owed call and the settled one (no invocation here); never the one that went free.
      expect(imported).toBe(2);
      expect(await journaledIds()).toEqual([owed.invocationId, settled.invocationId].sort());
      // The file is gone: a second read imports nothing.
      expect(readdirSync(directory).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
      expect(await survivor.importDead({ all: true })).toBe(0);
    } finally {
      await survivor.close();
      await dying.close();
      await database.db.query('DELETE FROM answered_calls');
    }
  });

  it('writes the calls of one turn of the event loop together, before any of them resolves, and fails them together', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'journal-'));
    const journal = createAnswerJournal(database.db, { directory, copyAfterMs: 3_600_000 });
    const lines = () =>
      readdirSync(directory)
        .filter((name) => name.endsWith('.jsonl'))
        .flatMap((name) => readFileSync(path.join(directory, name), 'utf8').split('\n').filter(Boolean))
        .map((line) => (JSON.parse(line) as { s: Settlement }).s.invocationId);
    const calls = [settlement(), settlement(), settlement()];
    try {
      const resolvedWith: string[][] = [];
      const recorded = calls.map((call) => journal.record(call).then(() => resolvedWith.push(lines())));
      // Nothing is written while the turn runs (its microtasks included)...
      await Promise.resolve();
      expect(lines()).toEqual([]);
      // ... and each call resolves only once every line of the turn is in the file.
      await Promise.all(recorded);
      expect(resolvedWith).toEqual(calls.map(() => calls.map((call) => call.invocationId)));
      // A call of a later turn goes to the same file, after them.
      const later = settlement();
      await journal.record(later);
      expect(lines()).toEqual([...calls, later].map((call) => call.invocationId));
    } finally {
      for (const call of calls) journal.done(call.invocationId, 'settled');
      await journal.close();
    }

    // A turn whose write fails fails every call of it (their answers then wait for their
    // settlements), and the journal owes none of them: here its directory cannot be made.
    const blocked = path.join(mkdtempSync(path.join(tmpdir(), 'journal-')), 'not-a-directory');
    writeFileSync(blocked, '');
    const broken = createAnswerJournal(database.db, { directory: blocked, copyAfterMs: 20 });
    const failing = [settlement(), settlement()].map((call) => broken.record(call));
    for (const result of await Promise.allSettled(failing)) expect(result.status).toBe('rejected');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await journaledIds()).toEqual([]);
    await broken.close();
  });

  it.runIf(process.platform !== 'win32')('keeps its directory and files to this user: a line holds what the caller asked and the answer', async () => {
    const base = path.join(mkdtempSync(path.join(tmpdir(), 'journal-')), 'tollbooth-answered-calls');
    const directory = path.join(base, 'database');
    const journal = createAnswerJournal(database.db, { directory, copyAfterMs: 3_600_000 });
    const call = settlement();
    await journal.record(call);
    try {
      const [name] = readdirSync(directory);
      expect(statSync(base).mode & 0o777).toBe(0o700);
      expect(statSync(directory).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(directory, name!)).mode & 0o777).toBe(0o600);
    } finally {
      journal.done(call.invocationId, 'settled');
      await journal.close();
    }
  });

  it.runIf(process.platform !== 'win32')('closes a directory an earlier version left open to other users', async () => {
    const directory = path.join(mkdtempSync(path.join(tmpdir(), 'journal-')), 'database');
    mkdirSync(directory, { mode: 0o755 });
    chmodSync(directory, 0o755);
    const journal = createAnswerJournal(database.db, { directory, copyAfterMs: 3_600_000 });
    const call = settlement();
    await journal.record(call);
    try {
      expect(statSync(directory).mode & 0o777).toBe(0o700);
    } finally {
      journal.done(call.invocationId, 'settled');
      await journal.close();
    }
  });

  it('copies a call whose settlement is late to answered_calls, and removes its file once every call in it is done', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'journal-'));
    const journal = createAnswerJournal(database.db, { directory, copyAfterMs: 20 });
    const late = settlement();
    await journal.record(late);
    await vi.waitFor(async () => expect(await journaledIds()).toEqual([late.invocationId]), { timeout: 5_000, interval: 20 });
    // Its settlement then commits (which deletes the row) and the journal lets go of it.
    await database.db.query('DELETE FROM answered_calls WHERE id = $1', [late.invocationId]);
    journal.done(late.invocationId, 'settled');
    await journal.close();
    expect(existsSync(directory)).toBe(false);
  });

  it("knows a dead writer by its pid on this machine, a restarted container by its own pid, and any other by its file's age", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'journal-'));
    const host = hostname().replace(/[^A-Za-z0-9_]/g, '_') || 'host';
    const line = (call: Settlement) => `${JSON.stringify({ s: call })}\n`;
    const calls = {
      ownPidEarlier: settlement(),
      deadPid: settlement(),
      freshElsewhere: settlement(),
      staleElsewhere: settlement(),
      alive: settlement(),
      pidReused: settlement(),
    };
    // This process's pid under another start: the process that had it before (a container restarted as pid 1 again).
    writeFileSync(path.join(directory, `${host}.${process.pid}.old.abc-0.jsonl`), line(calls.ownPidEarlier));
    // A pid no process has on this machine.
    writeFileSync(path.join(directory, `${host}.4194999.x.abc-0.jsonl`), line(calls.deadPid));
    // Another machine's processes on a shared directory: one touched its file just now, one stopped long ago.
    writeFileSync(path.join(directory, 'elsewhere.1.x.abc-0.jsonl'), line(calls.freshElsewhere));
    const stale = path.join(directory, 'elsewhere.2.x.abc-0.jsonl');
    writeFileSync(stale, line(calls.staleElsewhere));
    const longAgo = new Date(Date.now() - 10 * 60_000);
    utimesSync(stale, longAgo, longAgo);
    // A live process of this machine (the parent of this test runner) that touched its file just now: it lives.
    writeFileSync(path.join(directory, `${host}.${process.ppid}.x.abc-0.jsonl`), line(calls.alive));
    // The same live pid on a file untouched for long: a writer that died, whose pid another process took since.
    const reused = path.join(directory, `${host}.${process.ppid}.y.abc-0.jsonl`);
    writeFileSync(reused, line(calls.pidReused));
    utimesSync(reused, longAgo, longAgo);

    const journal = createAnswerJournal(database.db, { directory, staleAfterMs: 60_000 });
    try {
      expect(await journal.importDead()).toBe(4);
      expect(await journaledIds()).toEqual(
        [calls.ownPidEarlier.invocationId, calls.deadPid.invocationId, calls.staleElsewhere.invocationId, calls.pidReused.invocationId].sort(),
      );
      expect(readdirSync(directory).sort()).toEqual([`${host}.${process.ppid}.x.abc-0.jsonl`, 'elsewhere.1.x.abc-0.jsonl'].sort());
    } finally {
      await journal.close();
      await database.db.query('DELETE FROM answered_calls');
    }
  });

  it.runIf(existsSync('/proc/self/stat'))(
    "tells a live writer from another process that took its pid by the process's start, and a zombie from a live process",
    async () => {
      const directory = mkdtempSync(path.join(tmpdir(), 'journal-'));
      const host = hostname().replace(/[^A-Za-z0-9_]/g, '_') || 'host';
      const line = (call: Settlement) => `${JSON.stringify({ s: call })}\n`;
      const startOf = (pid: number) => {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]).toString(36);
      };
      // A child that leaves a zombie: sh starts `sleep 1` in the background, then becomes `sleep 30`, which never reaps it.
      // The child outlives sh by a second: a shell may reap a child that ended before it reached `exec` (CI saw that once).
      const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
      try {
        const zombie = Number((await new Promise<string>((resolve) => parent.stdout.once('data', (data: Buffer) => resolve(String(data))))).trim());
        await vi.waitFor(() => expect(readFileSync(`/proc/${zombie}/stat`, 'utf8')).toMatch(/\) Z /), { timeout: 10_000, interval: 20 });
        const calls = { writerLives: settlement(), pidTaken: settlement(), zombie: settlement(), halfLifetime: settlement() };
        const longAgo = new Date(Date.now() - 10 * 60_000);
        // The parent of this test runner under its own start: it lives, however long its file was left untouched.
        const lives = path.join(directory, `${host}.${process.ppid}.p${startOf(process.ppid)}.abc-0.jsonl`);
        writeFileSync(lives, line(calls.writerLives));
        utimesSync(lives, longAgo, longAgo);
        // The same pid under another start, touched just now: its writer is gone and another process has the pid.
        writeFileSync(path.join(directory, `${host}.${process.ppid}.p1.abc-0.jsonl`), line(calls.pidTaken));
        // A writer that died and was not reaped yet.
        writeFileSync(path.join(directory, `${host}.${zombie}.x.abc-0.jsonl`), line(calls.zombie));
        // Another machine's file untouched for half the hold lifetime: read before the holds of its calls can expire.
        const half = path.join(directory, 'elsewhere.3.x.abc-0.jsonl');
        writeFileSync(half, line(calls.halfLifetime));
        const halfAgo = new Date(Date.now() - 30_000);
        utimesSync(half, halfAgo, halfAgo);

        const journal = createAnswerJournal(database.db, { directory, staleAfterMs: 60_000 });
        try {
          expect(await journal.importDead()).toBe(3);
          expect(await journaledIds()).toEqual([calls.pidTaken.invocationId, calls.zombie.invocationId, calls.halfLifetime.invocationId].sort());
          expect(readdirSync(directory)).toEqual([path.basename(lives)]);
        } finally {
          await journal.close();
          await database.db.query('DELETE FROM answered_calls');
        }
      } finally {
        parent.kill();
      }
    },
  );
});
