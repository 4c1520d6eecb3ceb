// Real loopback servers for the network client's tests: each records every request it receives, and a test CA
// made with the openssl CLI signs a certificate for localhost and 127.0.0.1.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { listenOnLoopback } from './loopback.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface RecordingServer {
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** CONNECT requests (what a proxy receives for a tunnel), by target. */
  readonly tunnels: string[];
  /** How many TCP connections it accepted. */
  connections(): number;
  close(): Promise<void>;
}

export type Respond = (request: RecordedRequest, response: ServerResponse) => void;

const ok: Respond = (_request, response) => response.end('ok');

async function listen(server: Server, respond: Respond): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const tunnels: string[] = [];
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded = { method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString() };
      requests.push(recorded);
      respond(recorded, response);
    });
  });
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    tunnels.push(request.url!);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    port,
    requests,
    tunnels,
    connections: () => connections,
    close,
  };
}

/** An HTTP server on 127.0.0.1 that records every request and answers with `respond` (default: 200 `ok`). */
export function startServer(respond: Respond = ok): Promise<RecordingServer> {
  return listen(createHttpServer(), respond);
}

/** An HTTPS server on 127.0.0.1 with the given key and certificate. */
export function startTlsServer(key: string, cert: string, respond: Respond = ok): Promise<RecordingServer> {
  return listen(createHttpsServer({ key, cert }), respond);
}

/** A port nothing listens on (it was just bound and released). */
export async function closedPort(): Promise<number> {
  const server = await startServer();
  await server.close();
  return server.port;
}

export interface TestPki {
  /** The CA certificate (PEM). */
  readonly caCertificate: string;
  /** The CA's private key (PEM): what must never be accepted as a bundle. */
  readonly caKey: string;
  /** A certificate signing request (PEM). */
  readonly request: string;
  readonly serverKey: string;
  readonly serverCertificate: string;
}

/** A CA and a server certificate for localhost and 127.0.0.1, made with the openssl CLI in a temporary folder. */
export function makeTestPki(): TestPki {
  const folder = mkdtempSync(join(tmpdir(), 'agentctl-pki-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: folder, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=agentctl test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    writeFileSync(join(folder, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
    run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext');
    const read = (name: string) => readFileSync(join(folder, name), 'utf8');
    return { caCertificate: read('ca.pem'), caKey: read('ca.key'), request: read('server.csr'), serverKey: read('server.key'), serverCertificate: read('server.pem') };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
