// The Containerfile's rules, checked on its text (no engine needed): test/unit/containerfile.test.ts runs them on the
// real file and on bad samples, and build.mjs refuses to build a Containerfile that breaks one.
//   - every FROM names a build argument (or an earlier stage), and every such argument's default is pinned by digest;
//   - the runtime stage runs as 65532:65532 in /workspace, with agentctl as its exec-form entrypoint and no RUN;
//   - no ARG or ENV carries CA or secret material; the CA secret is mounted only by the install steps;
//   - the OCI labels are set.
import { readFileSync } from 'node:fs';

export const REQUIRED_LABELS = Object.freeze(['title', 'description', 'version', 'revision', 'source', 'licenses']
  .map((name) => `org.opencontainers.image.${name}`));
const DIGEST = /@sha256:[0-9a-f]{64}$/;
const SECRETISH = /(CA_CERT|CAFILE|CA_BUNDLE|CERTIFICATE|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|NPMRC|AUTH|PRIVATE|_KEY\b|\/run\/secrets)/i;
/** The only way a step may use the CA secret: npm through scripts/image/npm-with-ca.sh, to install. */
const INSTALL_STEP = /^sh (scripts\/image\/|\/native\/)npm-with-ca\.sh (ci|install)\b/;

/** The instructions: continuation lines joined, comments and blank lines dropped. */
export function instructions(text) {
  const lines = text.split('\n').filter((line) => !/^\s*#/.test(line));
  const joined = lines.join('\n').replace(/\\\n/g, ' ');
  return joined.split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
    const [keyword] = line.split(/\s+/, 1);
    return { keyword: keyword.toUpperCase(), rest: line.slice(keyword.length).trim() };
  });
}

/** `NAME=value` pairs of an ARG, ENV or LABEL line (values may be double-quoted). */
function pairs(rest) {
  return [...rest.matchAll(/([A-Za-z0-9_.-]+)(?:=("(?:[^"\\]|\\.)*"|\S*))?/g)]
    .map(([, name, value]) => ({ name, value: value?.replace(/^"|"$/g, '') }));
}

/** Every rule the text breaks, as sentences; empty when it keeps them all. */
export function containerfileProblems(text) {
  const problems = [];
  const globalArgs = new Map();
  const stages = [];
  for (const { keyword, rest } of instructions(text)) {
    if (keyword === 'FROM') {
      const [, image, alias] = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest) ?? [];
      stages.push({ image, alias, steps: [] });
      const argument = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(image ?? '');
      if (argument) {
        const value = globalArgs.get(argument[1]);
        if (value === undefined) problems.push(`FROM ${image}: ${argument[1]} is not an ARG declared before the first FROM`);
        else if (!DIGEST.test(value)) problems.push(`ARG ${argument[1]} defaults to ${value || 'nothing'}, not an image pinned by @sha256 digest`);
      } else if (!stages.slice(0, -1).some((stage) => stage.alias === image)) {
        problems.push(`FROM ${image}: a base image must be a build argument pinned by digest, not a literal`);
      }
      continue;
    }
    if (stages.length === 0) {
      if (keyword === 'ARG') for (const { name, value } of pairs(rest)) globalArgs.set(name, value ?? '');
      else problems.push(`${keyword} before the first FROM`);
      continue;
    }
    stages.at(-1).steps.push({ keyword, rest });
  }
  if (stages.length < 2) problems.push('not multi-stage: a builder stage and a runtime stage are expected');
  for (const { keyword, rest } of stages.flatMap((stage) => stage.steps).concat([...globalArgs].map(([n, v]) => ({ keyword: 'ARG', rest: `${n}=${v}` })))) {
    const secret = /--mount=type=secret\S*/.exec(rest);
    const command = rest.replace(/--mount=\S+\s*/g, '').trim();
    if ((keyword === 'ARG' || keyword === 'ENV') && SECRETISH.test(rest)) problems.push(`${keyword} ${rest}: carries CA or secret material`);
    else if (secret && (keyword !== 'RUN' || !INSTALL_STEP.test(command))) problems.push(`${keyword} ${command}: the CA secret is mounted by a step that is not an install`);
    else if (!secret && /\/run\/secrets/.test(rest)) problems.push(`${keyword} ${rest}: names /run/secrets`);
    if (keyword === 'RUN' && /npm-with-ca\.sh/.test(command) && !secret) problems.push(`RUN ${command}: installs without the CA secret mount`);
  }
  const runtime = stages.at(-1)?.steps ?? [];
  const last = (name) => runtime.filter((step) => step.keyword === name).at(-1)?.rest;
  if (last('USER') !== '65532:65532') problems.push(`the runtime stage's USER is ${last('USER') ?? 'unset'}, expected 65532:65532`);
  if (last('WORKDIR') !== '/workspace') problems.push(`the runtime stage's WORKDIR is ${last('WORKDIR') ?? 'unset'}, expected /workspace`);
  const entrypoint = last('ENTRYPOINT');
  let argv;
  try { argv = JSON.parse(entrypoint ?? ''); } catch { argv = null; }
  if (!Array.isArray(argv) || argv[0] !== '/nodejs/bin/node' || !/agentctl/.test(argv[1] ?? '')) {
    problems.push(`the runtime ENTRYPOINT is ${entrypoint ?? 'unset'}, expected the exec form ["/nodejs/bin/node", ".../agentctl"]`);
  }
  if (runtime.some((step) => step.keyword === 'RUN')) problems.push('the runtime stage has a RUN step (it has no shell)');
  const labels = new Set(runtime.filter((step) => step.keyword === 'LABEL').flatMap((step) => pairs(step.rest).map((p) => p.name)));
  for (const label of REQUIRED_LABELS) if (!labels.has(label)) problems.push(`the runtime stage lacks LABEL ${label}`);
  return [...new Set(problems)];
}

/** Throws when the Containerfile at `path` breaks a rule. */
export function assertContainerfile(path) {
  const problems = containerfileProblems(readFileSync(path, 'utf8'));
  if (problems.length > 0) throw new Error(`${path} breaks the image's rules:\n- ${problems.join('\n- ')}`);
}
