// @ts-check
// A loopback server that speaks the GitHub REST API's wire format for the two endpoints of this pack: it records
// every request and answers from a queue of scripted replies (by default, the created object).
import { createServer } from 'node:http';

/**
 * @typedef {{ method: string, path: string, headers: Record<string, string>, body: unknown, text: string }} Recorded
 * @typedef {{ status: number, body: unknown } | 'reset'} Reply
 */

/** Starts the server on a random port of 127.0.0.1; `url` is its API root (what `apiUrl` names). */
export async function startGithub() {
  /** @type {Recorded[]} */
  const requests = [];
  /** @type {Reply[]} */
  const replies = [];
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  let next = 100;
  const server = createServer((request, response) => {
    /** @type {Buffer[]} */
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      /** @type {Record<string, string>} */
      const headers = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      const path = request.url ?? '';
      requests.push({ method: request.method ?? '', path, headers, body, text });
      const reply = replies.shift() ?? created(path, (next += 1));
      if (reply === 'reset') return void response.socket?.destroy();
      response.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'x-github-request-id': 'CAFE:1' });
      response.end(JSON.stringify(reply.body));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    /** @param {Reply[]} scripted */
    enqueue: (...scripted) => void replies.push(...scripted),
    reset: () => {
      requests.splice(0);
      replies.splice(0);
      next = 100;
    },
    /** @returns {Promise<void>} */
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The 201 answer GitHub gives for a created comment or check run (the fields this pack reads, and a few beside).
 * @param {string} path
 * @param {number} id
 * @returns {Reply}
 */
function created(path, id) {
  const [, owner, repo, , number] = path.split('/').slice(1);
  if (path.endsWith('/check-runs')) return { status: 201, body: { id, node_id: 'CR_x', html_url: `https://github.com/${owner}/${repo}/runs/${id}`, status: 'completed' } };
  return { status: 201, body: { id, node_id: 'IC_x', html_url: `https://github.com/${owner}/${repo}/pull/${number}#issuecomment-${id}`, body: '…' } };
}

/**
 * The test runner's globals, typed here so that the tests type-check (// @ts-check) without @types/mocha.
 * @type {{
 *   describe: (name: string, body: () => void) => void,
 *   it: (name: string, body: () => Promise<void>) => void,
 *   before: (body: () => Promise<void>) => void,
 *   after: (body: () => Promise<void>) => void,
 *   beforeEach: (body: () => void) => void,
 * }}
 */
export const mocha = /** @type {any} */ (globalThis);

/** The policy a loopback server needs: its address allowed, private addresses and plain http allowed. */
export const LOOPBACK_POLICY = { networkAllowlist: ['127.0.0.1'], network: { allowPrivate: true, allowedSchemes: ['http'] } };
