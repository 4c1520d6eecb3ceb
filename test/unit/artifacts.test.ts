// The blob store on its own: concurrent writers, a damaged blob, the no-clobber export, digests as typed.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { isAgentctlError } from '@agentctl/sdk';
import { ArtifactStore, exportBytes, parseDigest } from '../../core/store/artifacts.js';

const code = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return isAgentctlError(error) ? error.code : String(error);
  }
  return 'no error';
};

describe('artifact blobs', () => {
  let dir: string;
  let store: ArtifactStore;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-artifacts-')));
    store = ArtifactStore.beside(join(dir, 'runtime.db'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('concurrent writers of the same bytes all succeed and leave one intact blob and no temporary file', async () => {
    const bytes = Buffer.from('x'.repeat(1 << 20));
    const hex = createHash('sha256').update(bytes).digest('hex');
    const references = await Promise.all(Array.from({ length: 16 }, () => store.ingest(bytes)));
    expect(new Set(references.map((reference) => JSON.stringify(reference)))).to.deep.equal(new Set([JSON.stringify({ digest: `sha256:${hex}`, size: bytes.length })]));
    expect(store.blobPath(`sha256:${hex}`)).to.equal(join(dir, 'artifacts', 'sha256', hex.slice(0, 2), hex));
    expect(readdirSync(join(dir, 'artifacts', 'sha256', hex.slice(0, 2)))).to.deep.equal([hex]);
    expect(readFileSync(store.blobPath(`sha256:${hex}`)).equals(bytes)).to.equal(true);
    expect((await store.check(`sha256:${hex}`, bytes.length)).status).to.equal('ok');
  });

  it('a blob whose bytes do not match its name is replaced by the next ingest of the right bytes, and detected before', async () => {
    const { digest } = await store.ingest(Buffer.from('right'));
    chmodSync(store.blobPath(digest), 0o644);
    writeFileSync(store.blobPath(digest), 'wrong');
    expect(await store.check(digest, 5)).to.deep.include({ status: 'corrupt', reason: 'its bytes hash to another digest' });
    expect(await code(store.read(digest))).to.equal('AGENTCTL_E_ARTIFACT_CORRUPT');
    await store.ingest(Buffer.from('right'));
    expect(readFileSync(store.blobPath(digest), 'utf8')).to.equal('right');
    expect(readdirSync(dirname(store.blobPath(digest)))).to.have.length(1);
  });

  it('a recorded size that differs is a damaged blob; a folder in its place is too', async () => {
    const { digest } = await store.ingest(Buffer.from('abc'));
    expect(await store.check(digest, 4)).to.deep.include({ status: 'corrupt', reason: 'it holds 3 bytes, 4 were recorded' });
    const other = `sha256:${'0'.repeat(64)}`;
    mkdirSync(store.blobPath(other), { recursive: true });
    expect(await store.check(other)).to.deep.include({ status: 'corrupt', reason: 'not a regular file' });
  });

  it('export never replaces an existing destination without force, even a link, and leaves no temporary file', async () => {
    const target = join(dir, 'out.txt');
    await exportBytes(target, Buffer.from('one'), false);
    expect(await code(exportBytes(target, Buffer.from('two'), false))).to.equal('AGENTCTL_E_ARTIFACT_DESTINATION_EXISTS');
    expect(readFileSync(target, 'utf8')).to.equal('one');
    await exportBytes(target, Buffer.from('two'), true);
    expect(readFileSync(target, 'utf8')).to.equal('two');
    symlinkSync(target, join(dir, 'link'));
    expect(await code(exportBytes(join(dir, 'link'), Buffer.from('three'), false))).to.equal('AGENTCTL_E_ARTIFACT_DESTINATION_EXISTS');
    expect(readFileSync(target, 'utf8')).to.equal('two');
    rmSync(join(dir, 'link'));
    mkdirSync(join(dir, 'folder'));
    expect(await code(exportBytes(join(dir, 'folder'), Buffer.from('x'), false))).to.equal('AGENTCTL_E_ARTIFACT_DESTINATION_EXISTS');
    expect(await code(exportBytes(join(dir, 'folder'), Buffer.from('x'), true))).to.equal('AGENTCTL_E_ARTIFACT_EXPORT');
    expect(readdirSync(dir).sort()).to.deep.equal(['folder', 'out.txt']);
  });

  it('digests are accepted with or without the sha256: prefix, in any case, and nothing else', () => {
    const hex = 'AB'.repeat(32);
    expect(parseDigest(hex)).to.equal(`sha256:${hex.toLowerCase()}`);
    expect(parseDigest(`sha256:${hex}`)).to.equal(`sha256:${hex.toLowerCase()}`);
    for (const bad of ['', 'sha256:', 'ab', `md5:${hex}`, `${hex}0`, `sha256:../${hex.slice(3)}`]) expect(parseDigest(bad), bad).to.equal(undefined);
  });
});
