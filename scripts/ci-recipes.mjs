#!/usr/bin/env node
// Renders the CI and Kubernetes recipes of docs/ci/ from their templates (scripts/ci-recipes/templates/) and the
// image's run contract (scripts/image/contract.mjs), so the `docker run` line a user copies is the one the container
// gate runs. `--write` writes every recipe; `--check` exits 1 when a committed recipe differs from its rendering.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineCommand } from './ci-recipes/commands.mjs';
import { kubernetesManifests } from './ci-recipes/kubernetes.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TEMPLATES = join(ROOT, 'scripts', 'ci-recipes', 'templates');
const PLACEHOLDER = /\{\{ agentctl:([a-z-]+) \}\}/;

/** The four host folders of a CI job: its checkout holds the reviewed config (agentctl/) and is the workspace. */
const hostsBelow = (checkout, kept) => ({
  config: `${checkout}/agentctl`,
  workspace: checkout,
  state: `${kept}/state`,
  artifacts: `${kept}/artifacts`,
});

/** Each text recipe: its template, the file it becomes, and where its job finds the image and the four folders. */
export const TEXT_RECIPES = Object.freeze([
  { template: 'github-actions.yml', output: 'docs/ci/github-actions.yml', engine: 'docker', image: '$AGENTCTL_IMAGE', hosts: hostsBelow('$GITHUB_WORKSPACE', '$RUNNER_TEMP/agentctl') },
  // GitLab collects artifacts only from inside the project folder.
  { template: 'gitlab-ci.yml', output: 'docs/ci/gitlab-ci.yml', engine: 'docker', image: '$AGENTCTL_IMAGE', hosts: hostsBelow('$CI_PROJECT_DIR', '$CI_PROJECT_DIR/.agentctl-ci') },
  { template: 'Jenkinsfile', output: 'docs/ci/Jenkinsfile', engine: 'docker', image: '$AGENTCTL_IMAGE', hosts: hostsBelow('$WORKSPACE', '$WORKSPACE/.agentctl-ci') },
  { template: 'harness-run-step.yaml', output: 'docs/ci/harness-run-step.yaml', engine: 'docker', image: '$AGENTCTL_IMAGE', hosts: hostsBelow('/harness', '/harness/.agentctl-ci') },
]);

/** The commands docs/ci/README.md shows, between `<!-- agentctl:STEP -->` markers, for a local engine. */
export const README = Object.freeze({ output: 'docs/ci/README.md', engine: 'docker', image: 'agentctl:local', hosts: hostsBelow('$PWD', '$PWD/.agentctl-ci') });
const README_BLOCK = /<!-- agentctl:([a-z-]+) -->\n[\s\S]*?<!-- \/agentctl:\1 -->/g;

/** Fills each marked block of the README with the engine command of its step, in a sh fence. */
export function renderReadme(text, recipe = README) {
  return text.replace(README_BLOCK, (_block, step) => {
    const { lines } = engineCommand(recipe.engine, { step, hosts: recipe.hosts, image: recipe.image });
    return `<!-- agentctl:${step} -->\n\`\`\`sh\n${lines.join(' \\\n  ')}\n\`\`\`\n<!-- /agentctl:${step} -->`;
  });
}

/** Replaces each `{{ agentctl:STEP }}` with the engine command of that step, continued with ` \` at the line's indent. */
export function renderTemplate(text, recipe) {
  return text
    .split('\n')
    .flatMap((line) => {
      const match = PLACEHOLDER.exec(line);
      if (!match) return [line];
      const before = line.slice(0, match.index);
      const after = line.slice(match.index + match[0].length);
      const indent = /^\s*/.exec(before)[0];
      const { lines } = engineCommand(recipe.engine, { step: match[1], hosts: recipe.hosts, image: recipe.image });
      return lines.map((part, index) => {
        const start = index === 0 ? before : `${indent}  `;
        return index === lines.length - 1 ? `${start}${part}${after}` : `${start}${part} \\`;
      });
    })
    .join('\n');
}

/** Every rendered recipe: path relative to the repository root, and its text. */
export function renderRecipes() {
  const rendered = new Map();
  for (const recipe of TEXT_RECIPES) rendered.set(recipe.output, renderTemplate(readFileSync(join(TEMPLATES, recipe.template), 'utf8'), recipe));
  rendered.set(README.output, renderReadme(readFileSync(join(ROOT, README.output), 'utf8')));
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  for (const [path, text] of kubernetesManifests({ version })) rendered.set(path, text);
  return rendered;
}

/** The recipes whose committed text differs from their rendering (a missing file differs). */
export function staleRecipes(root = ROOT) {
  const stale = [];
  for (const [path, text] of renderRecipes()) {
    let committed;
    try {
      committed = readFileSync(join(root, path), 'utf8');
    } catch {
      committed = undefined;
    }
    if (committed !== text) stale.push(path);
  }
  return stale;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  if (mode === '--write') {
    for (const [path, text] of renderRecipes()) {
      mkdirSync(dirname(join(ROOT, path)), { recursive: true });
      writeFileSync(join(ROOT, path), text);
    }
  } else if (mode === '--check') {
    const stale = staleRecipes();
    for (const path of stale) process.stderr.write(`${path} differs from its rendering: run node scripts/ci-recipes.mjs --write\n`);
    process.exitCode = stale.length === 0 ? 0 : 1;
  } else {
    process.stderr.write('usage: node scripts/ci-recipes.mjs --write | --check\n');
    process.exitCode = 2;
  }
}
