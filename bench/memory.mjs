// Figure (k): long-term memory search over 10,000 entries of 1 KiB in one namespace, text and vector, per query.
// The entries are written straight into a migrated state database through the built sqlite store (writing them with
// 10,000 CLI invocations would measure process start-up, not search). Each query then runs two ways:
// - in-process: the store's search (the query embedded with local_hash for vector), what a search task's effect does;
// - `agentctl memory search` as a whole invocation (start-up, opening the database, printing), for information;
// - in-process again after `db encryption enable`, each candidate's words or vector opened with the state key.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

export const MEMORY_ENTRIES = 10_000;
const ENTRY_BYTES = 1024;
const QUERIES = ['invoice overdue customer', 'deploy rollback cluster', 'quarterly report revenue', 'password rotation policy', 'backup restore database'];

/** A deterministic text of about 1 KiB drawn from a fixed vocabulary (a linear congruential generator). */
function entryText(index, vocabulary) {
  let seed = (index + 1) * 2654435761;
  const words = [];
  let bytes = 0;
  while (bytes < ENTRY_BYTES - 16) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const word = vocabulary[seed % vocabulary.length];
    words.push(word);
    bytes += word.length + 1;
  }
  return words.join(' ');
}

export async function measureMemorySearch({ timed, node, cli, root, tmpRoot, reps }) {
  const db = join(tmpRoot, 'memory-bench.db');
  const migrate = await timed(node, [cli, 'db', 'migrate', '--db', db]);
  if (migrate.code !== 0) throw new Error(`db migrate exited ${migrate.code}: ${migrate.stderr}`);
  const { SqliteMemoryStore } = await import(pathToFileURL(join(root, 'dist', 'core', 'memory', 'sqlite-store.js')).href);
  const { localHashEmbedder } = await import(pathToFileURL(join(root, 'dist', 'core', 'memory', 'local-hash.js')).href);
  const embedder = localHashEmbedder(64);
  const vocabulary = [...new Set(QUERIES.join(' ').split(' '))].concat(Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}`));
  const store = SqliteMemoryStore.open({ databasePath: db, create: false });
  const now = new Date().toISOString();
  const seeded = performance.now();
  for (let index = 0; index < MEMORY_ENTRIES; index += 1) {
    const text = entryText(index, vocabulary);
    const [values] = await embedder.embed([text]);
    store.put({ namespace: 'bench', key: `entry-${String(index).padStart(5, '0')}`, entry: { formatVersion: 1, content: { type: 'text', text }, metadata: {} }, expiresAt: null, vector: { identity: embedder.identity, values } }, now);
  }
  const seedMs = performance.now() - seeded;
  const samples = { text: [], vector: [], cliText: [], cliVector: [], sealedText: [], sealedVector: [] };
  const search = async (mode, text) => {
    const started = performance.now();
    const vector = mode === 'text' ? null : { identity: embedder.identity, values: (await embedder.embed([text]))[0] };
    const hits = store.search({ namespace: 'bench', text, mode, limit: 10, filters: {} }, vector, new Date().toISOString());
    if (hits.length === 0) throw new Error(`a ${mode} search of "${text}" found nothing`);
    return performance.now() - started;
  };
  for (let rep = -1; rep < reps; rep += 1) {
    for (const query of QUERIES) {
      const [text, vector] = [await search('text', query), await search('vector', query)];
      if (rep >= 0) samples.text.push(text), samples.vector.push(vector);
    }
  }
  store.close();
  for (let rep = 0; rep < Math.min(reps, 3); rep += 1) {
    for (const [mode, bucket] of [['text', samples.cliText], ['vector', samples.cliVector]]) {
      const result = await timed(node, [cli, 'memory', 'search', 'bench', QUERIES[rep % QUERIES.length], '--mode', mode, '--db', db, '--output', 'json']);
      if (result.code !== 0) throw new Error(`memory search exited ${result.code}: ${result.stderr}`);
      bucket.push(result.ms);
    }
  }
  // The same searches once the database's state is encrypted (information): every candidate's words or vector is opened.
  const keyVariable = 'AGENTCTL_BENCH_STATE_KEY';
  const env = { ...process.env, [keyVariable]: randomBytes(32).toString('base64') };
  const enabled = await timed(node, [cli, 'db', 'encryption', 'enable', '--key-id', 'bench', '--key-env', keyVariable, '--db', db], { env });
  if (enabled.code !== 0) throw new Error(`db encryption enable exited ${enabled.code}: ${enabled.stderr}`);
  process.env[keyVariable] = env[keyVariable];
  const sealed = SqliteMemoryStore.open({ databasePath: db, create: false });
  try {
    for (let rep = -1; rep < reps; rep += 1) {
      for (const text of QUERIES) {
        const timings = [];
        for (const mode of ['text', 'vector']) {
          const started = performance.now();
          const vector = mode === 'text' ? null : { identity: embedder.identity, values: (await embedder.embed([text]))[0] };
          if (sealed.search({ namespace: 'bench', text, mode, limit: 10, filters: {} }, vector, new Date().toISOString()).length === 0) throw new Error(`an encrypted ${mode} search of "${text}" found nothing`);
          timings.push(performance.now() - started);
        }
        if (rep >= 0) samples.sealedText.push(timings[0]), samples.sealedVector.push(timings[1]);
      }
    }
  } finally {
    sealed.close();
    delete process.env[keyVariable];
  }
  return { samples, seedMs };
}
