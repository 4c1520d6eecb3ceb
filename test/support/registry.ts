// A package registry on loopback that publishes tarballs `npm pack` made, and nothing else: npm reaches it for one
// scope (`--@agentctl:registry=URL`), as it reaches the public registry for a published agentctl, and fetches every
// other package as usual. It answers the two requests an install makes: a package's document (its versions, each
// with the tarball's address and integrity) and the tarball itself.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';

export interface Registry {
  /** The registry's address, ending with `/`. */
  readonly url: string;
  close(): Promise<void>;
}

interface Published {
  readonly manifest: Record<string, unknown> & { readonly name: string; readonly version: string };
  readonly file: string;
  readonly bytes: Buffer;
}

/** Serves the given tarballs, each under the name and version of the package.json inside it. */
export async function startRegistry(tarballs: readonly string[]): Promise<Registry> {
  const published = tarballs.map((file): Published => {
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' })) as Published['manifest'];
    return { manifest, file: basename(file), bytes: readFileSync(file) };
  });
  let base = '';
  const document = (name: string) => {
    const versions = published.filter((item) => item.manifest.name === name);
    if (versions.length === 0) return undefined;
    const entries = versions.map(({ manifest, file, bytes }) => [
      manifest.version,
      {
        ...manifest,
        _id: `${manifest.name}@${manifest.version}`,
        dist: {
          tarball: `${base}tarballs/${file}`,
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
        },
      },
    ]);
    return { name, 'dist-tags': { latest: versions.at(-1)!.manifest.version }, versions: Object.fromEntries(entries) };
  };
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', base).pathname);
    const tarball = path.startsWith('/tarballs/') ? published.find((item) => `/tarballs/${item.file}` === path) : undefined;
    const body = tarball ? tarball.bytes : document(path.slice(1));
    if (body === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    if (Buffer.isBuffer(body)) response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url: base, close: () => new Promise<void>((done) => server.close(() => done())) };
}
