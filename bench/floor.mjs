// The physical floor under one process effect, for figure (a): what any durable runner must do per task, with no
// framework. A row is committed and synced to disk (the intent) before the process starts, the process is spawned
// and awaited exactly as the plain spawn loop does it, and a second row is committed and synced (the outcome). The
// database is SQLite in WAL mode with `synchronous = FULL`, as the ledger's durable commits are.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';

/** N tasks of intent (synced) + spawn of /bin/true + outcome (synced), one after another; returns wall ms. */
export async function durableSpawnLoop(n, dir) {
  const db = new Database(join(dir, `floor-${process.pid}-${Math.random().toString(16).slice(2)}.db`));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE IF NOT EXISTS effects (id INTEGER PRIMARY KEY, state TEXT NOT NULL, at TEXT NOT NULL)');
    const intent = db.prepare('INSERT INTO effects (id, state, at) VALUES (?, ?, ?)');
    const outcome = db.prepare('UPDATE effects SET state = ?, at = ? WHERE id = ?');
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      intent.run(i, 'requested', new Date().toISOString());
      await new Promise((resolvePromise, reject) => {
        const child = spawn('/bin/true', [], { cwd: dir, env: {}, stdio: ['ignore', 'pipe', 'pipe'], detached: true, shell: false, windowsHide: true });
        const out = [];
        child.stdout.on('data', (c) => out.push(c));
        child.stderr.on('data', (c) => out.push(c));
        child.once('error', reject);
        child.once('close', (code) => (code === 0 ? resolvePromise() : reject(new Error(`/bin/true exited ${code}`))));
      });
      outcome.run('succeeded', new Date().toISOString(), i);
    }
    return performance.now() - started;
  } finally {
    db.close();
  }
}
