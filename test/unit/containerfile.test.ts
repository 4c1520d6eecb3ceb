// The Containerfile's rules, on its text (no engine): bases are build arguments pinned by digest, the runtime runs as
// 65532 with agentctl as its entrypoint, the CA secret is used by install steps alone, the labels are set. The rule
// checker is also run on bad samples, so a rule that stops refusing is noticed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/cli.js';
// @ts-expect-error: a plain ES module of the build scripts, without type declarations
import { containerfileProblems, REQUIRED_LABELS } from '../../scripts/image/containerfile.mjs';
// @ts-expect-error: a plain ES module of the build scripts, without type declarations
import { webAddress } from '../../scripts/image/source-label.mjs';

const check = containerfileProblems as (text: string) => string[];
const text = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
const BUILDER = 'ARG BUILDER_IMAGE=docker.io/library/node:24-bookworm@sha256:934240a162082fd8b8a2f90cd5114446443f1eba1c5378f6687167ca405e6584';

/** The real Containerfile with one line replaced. */
function variant(from: string | RegExp, to: string): string {
  const changed = text.replace(from, to);
  expect(changed, `the Containerfile no longer contains ${String(from)}`).not.to.equal(text);
  return changed;
}

describe('Containerfile', () => {
  it('keeps every rule: pinned bases, user 65532, workdir, entrypoint, labels, secret only for installs', () => {
    expect(check(text)).to.deep.equal([]);
  });

  it('names every base by a build argument whose default is pinned by a sha256 digest', () => {
    const froms = text.split('\n').filter((line) => /^FROM\s/i.test(line));
    expect(froms).to.deep.equal(['FROM ${BUILDER_IMAGE} AS builder', 'FROM ${BUILDER_IMAGE} AS native', 'FROM builder AS install',
      'FROM ${RUNTIME_IMAGE} AS warm', 'FROM ${RUNTIME_IMAGE}']);
    expect(text).to.match(/^ARG BUILDER_IMAGE=\S+:24-bookworm@sha256:[0-9a-f]{64}$/m);
    expect(text).to.match(/^ARG RUNTIME_IMAGE=gcr\.io\/distroless\/nodejs24-debian12:nonroot@sha256:[0-9a-f]{64}$/m);
  });

  it('refuses a literal FROM name:tag', () => {
    expect(check(variant('FROM ${BUILDER_IMAGE} AS builder', 'FROM node:24-bookworm AS builder'))).to.deep.equal([
      'FROM node:24-bookworm: a base image must be a build argument pinned by digest, not a literal',
    ]);
  });

  it('refuses a literal FROM even when pinned, and a FROM of an undeclared argument', () => {
    const pinned = 'FROM docker.io/library/node:24-bookworm@sha256:934240a162082fd8b8a2f90cd5114446443f1eba1c5378f6687167ca405e6584 AS builder';
    expect(check(variant('FROM ${BUILDER_IMAGE} AS builder', pinned))).to.have.length(1);
    expect(check(variant('FROM ${BUILDER_IMAGE} AS builder', 'FROM ${OTHER} AS builder'))).to.deep.equal([
      'FROM ${OTHER}: OTHER is not an ARG declared before the first FROM',
    ]);
  });

  it('refuses a base argument whose default is a tag, or nothing', () => {
    expect(check(variant(BUILDER, 'ARG BUILDER_IMAGE=docker.io/library/node:24-bookworm'))).to.deep.equal([
      'ARG BUILDER_IMAGE defaults to docker.io/library/node:24-bookworm, not an image pinned by @sha256 digest',
    ]);
    expect(check(variant(BUILDER, 'ARG BUILDER_IMAGE=node@sha256:1234'))).to.have.length(1);
    expect(check(variant(BUILDER, 'ARG BUILDER_IMAGE'))).to.deep.equal([
      'ARG BUILDER_IMAGE defaults to nothing, not an image pinned by @sha256 digest',
    ]);
  });

  it('refuses a runtime stage that runs as root, elsewhere, through a shell, or with a RUN', () => {
    expect(check(variant('USER 65532:65532', 'USER root'))).to.deep.equal([
      "the runtime stage's USER is root, expected 65532:65532",
    ]);
    expect(check(variant('WORKDIR /workspace', 'WORKDIR /'))).to.deep.equal([
      "the runtime stage's WORKDIR is /, expected /workspace",
    ]);
    expect(check(variant(/^ENTRYPOINT .*$/m, 'ENTRYPOINT /nodejs/bin/node /opt/agentctl/bin/agentctl'))).to.have.length(1);
    expect(check(variant('USER 65532:65532', 'RUN true\nUSER 65532:65532'))).to.deep.equal([
      'the runtime stage has a RUN step (it has no shell)',
    ]);
  });

  it('refuses an ARG or ENV carrying CA or secret material', () => {
    expect(check(variant('ARG VERSION=0.0.0-dev', 'ARG VERSION=0.0.0-dev\nARG CA_BUNDLE'))).to.deep.equal([
      'ARG CA_BUNDLE: carries CA or secret material',
    ]);
    expect(check(variant('WORKDIR /src', 'ENV NODE_EXTRA_CA_CERTS=/run/secrets/agentctl_ca\nWORKDIR /src'))).to.deep.equal([
      'ENV NODE_EXTRA_CA_CERTS=/run/secrets/agentctl_ca: carries CA or secret material',
    ]);
  });

  it('mounts the CA secret for the install steps alone', () => {
    // better-sqlite3's compile, the development tree, the packed CLI: the three steps that download.
    const installs = text.match(/--mount=type=secret,id=agentctl_ca,required=false\s*\\\n\s*sh \S*npm-with-ca\.sh (ci|install)/g);
    expect(installs).to.have.length(3);
    expect(text.match(/type=secret/g)).to.have.length(3);
    const problems = check(variant('RUN npm run build', 'RUN --mount=type=secret,id=agentctl_ca npm run build'));
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^RUN npm run build .*: the CA secret is mounted by a step that is not an install$/);
    expect(check(variant('RUN npm run build', 'RUN cat /run/secrets/agentctl_ca && npm run build'))).to.have.length(1);
  });

  it('sets the OCI labels', () => {
    for (const label of REQUIRED_LABELS as string[]) {
      expect(check(variant(new RegExp(`${label.replaceAll('.', '\\.')}=`), 'org.example.other='))).to.deep.equal([
        `the runtime stage lacks LABEL ${label}`,
      ]);
    }
  });

  it('sends the same small build context to Podman and Docker', () => {
    const ignore = readFileSync(join(ROOT, '.containerignore'), 'utf8');
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8')).to.equal(ignore);
    const entries = ignore.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(entries).to.include.members(['.git', '**/node_modules', '**/dist', 'test', 'docs', 'examples', '**/*.db', '**/.npmrc', '**/*.pem']);
  });

  it('the source label is a web address without credentials, or none for a local remote', () => {
    expect(webAddress('git+https://github.com/acme/agentctl.git')).to.equal('https://github.com/acme/agentctl');
    expect(webAddress('git@github.com:acme/agentctl.git')).to.equal('https://github.com/acme/agentctl');
    expect(webAddress('https://ci:s3cret-token@gitlab.example.com/acme/agentctl.git')).to.equal('https://gitlab.example.com/acme/agentctl');
    expect(webAddress('/srv/checkouts/agentctl')).to.equal(undefined);
    expect(webAddress('')).to.equal(undefined);
  });
});
