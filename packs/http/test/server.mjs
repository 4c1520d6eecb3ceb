// @ts-check
// A loopback HTTP server for the tests: it records every request and answers by path, so a test can assert exactly
// what reached the server (and that a refused request never did).
import { createServer } from 'node:http';

/**
 * @typedef {{ method: string, path: string, headers: Record<string, string>, body: string }} Recorded
 * @typedef {(request: Recorded, response: import('node:http').ServerResponse) => void} Route
 */

/**
 * Starts a server on a random port of 127.0.0.1.
 * @param {Record<string, Route>} routes answers by path (without the query); an unknown path is 404
 */
export async function startServer(routes) {
  /** @type {Recorded[]} */
  const requests = [];
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  const server = createServer((request, response) => {
    /** @type {Buffer[]} */
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      /** @type {Record<string, string>} */
      const headers = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
      const recorded = { method: request.method ?? '', path: request.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      const route = routes[recorded.path.split('?')[0] ?? ''];
      if (route) return route(recorded, response);
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"message":"Not Found"}');
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
    port: address.port,
    requests,
    /** @returns {Promise<void>} */
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
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
