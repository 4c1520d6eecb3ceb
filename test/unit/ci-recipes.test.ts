// The CI and Kubernetes recipes of docs/ci/: each is the rendering of its template and the image's run contract (a
// contract change that was not rendered fails here), each passes its platform's own parser or schema, each engine
// command in it is the gate's (`runArguments` of scripts/image/contract.mjs), and none carries a credential value.
// Every checker also runs on a broken sample, so a check that can no longer fail is noticed.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { parse, parseAllDocuments } from 'yaml';
import { ROOT } from '../support/cli.js';
import {
  dockerCommands,
  githubProblems,
  gitlabProblems,
  harnessProblems,
  jenkinsProblems,
  jenkinsScripts,
  kubernetesProblems,
  podOf,
  podSecurityProblems,
  secretProblems,
  shellSyntaxProblems,
} from '../support/ci-recipe-checks.js';

interface TextRecipe {
  readonly template: string;
  readonly output: string;
  readonly engine: string;
  readonly image: string;
  readonly hosts: Record<string, string>;
}
interface Contract {
  readonly RUN_FLAGS: readonly string[];
  readonly MOUNTS: readonly { name: string; target: string; readOnly: boolean }[];
  runArguments(options: { image: string; hosts: Record<string, string>; args: readonly string[]; env: readonly string[]; network: string | null }): string[];
}
type Steps = Record<string, (reference: (name: string) => string) => string[]>;

// The scripts are plain ESM without declarations: imported by URL and typed here.
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(ROOT, path)).href)) as T;
const contract = await load<Contract>('scripts/image/contract.mjs');
const { TEXT_RECIPES, README, renderRecipes, staleRecipes } = await load<{
  TEXT_RECIPES: readonly TextRecipe[];
  README: Omit<TextRecipe, 'template'>;
  renderRecipes(): Map<string, string>;
  staleRecipes(root?: string): string[];
}>('scripts/ci-recipes.mjs');
const { STEPS, CREDENTIALS, shellWord } = await load<{ STEPS: Steps; CREDENTIALS: readonly string[]; shellWord(word: string): string }>('scripts/ci-recipes/commands.mjs');
const { translateRunFlags } = await load<{ translateRunFlags(flags?: readonly string[]): unknown }>('scripts/ci-recipes/kubernetes.mjs');

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const recipeText = (name: string) => read(TEXT_RECIPES.find((recipe) => recipe.output.endsWith(name))!.output);
const kubernetesFiles = () => readdirSync(join(ROOT, 'docs/ci/kubernetes')).map((name) => `docs/ci/kubernetes/${name}`);

/** The shell scripts a recipe runs, read the way its platform reads them. */
function scriptsOf(recipe: TextRecipe, text: string): string[] {
  if (recipe.output.endsWith('Jenkinsfile')) return jenkinsScripts(text);
  const document = parse(text);
  if (recipe.output.endsWith('github-actions.yml')) {
    return Object.values<any>(document.jobs).flatMap((job) => job.steps.filter((step: any) => typeof step.run === 'string').map((step: any) => step.run as string));
  }
  if (recipe.output.endsWith('gitlab-ci.yml')) {
    return Object.values<any>(document).filter((job) => Array.isArray(job?.script)).map((job) => [...(job.before_script ?? []), ...job.script].join('\n'));
  }
  return (document as { step: any }[]).map(({ step }) => step.spec.command as string);
}

/** A step that reaches the provider (run, resume) forwards its credential by name; the others have no network. */
const reachesProvider = (args: readonly string[]) => args[0] === 'run' || args[0] === 'resume';

/** Asserts that one engine command is `runArguments` of the contract for the recipe's folders and image; its step. */
function gateStep(recipe: Omit<TextRecipe, 'template'>, words: string[]): string {
  const args = words.slice(words.indexOf(recipe.image) + 1);
  const network = reachesProvider(args);
  const expected = [recipe.engine, ...contract.runArguments({ image: recipe.image, hosts: recipe.hosts, args, env: network ? CREDENTIALS : [], network: network ? null : 'none' })];
  expect(words).to.deep.equal(expected);
  const step = Object.keys(STEPS).find((name) => JSON.stringify(STEPS[name]!((variable) => `$${variable}`)) === JSON.stringify(args));
  expect(step, `agentctl ${args.join(' ')} is no step of scripts/ci-recipes/commands.mjs`).to.be.a('string');
  return step!;
}

describe('docs/ci recipes', () => {
  describe('one source: the rendering of the templates and the run contract', () => {
    it('every committed recipe (and the README\'s commands) equals its rendering, and docs/ci holds nothing else', () => {
      const rendered = renderRecipes();
      for (const [path, text] of rendered) expect(read(path), `${path}: run node scripts/ci-recipes.mjs --write`).to.equal(text);
      const committed = readdirSync(join(ROOT, 'docs/ci'), { recursive: true, encoding: 'utf8' })
        .map((entry) => `docs/ci/${entry}`)
        .filter((path) => !path.endsWith('/kubernetes'));
      expect(committed.sort()).to.deep.equal([...rendered.keys()].sort());
      expect(staleRecipes()).to.deep.equal([]);
    });

    it('`ci-recipes.mjs --check` exits 0 on the repository, and staleRecipes names a recipe that was edited by hand', () => {
      const check = spawnSync(process.execPath, [join(ROOT, 'scripts/ci-recipes.mjs'), '--check'], { encoding: 'utf8' });
      expect(check.status, check.stderr).to.equal(0);
      const copy = mkdtempSync(join(tmpdir(), 'agentctl-recipes-'));
      try {
        cpSync(join(ROOT, 'docs/ci'), join(copy, 'docs/ci'), { recursive: true });
        const edited = join(copy, 'docs/ci/gitlab-ci.yml');
        writeFileSync(edited, readFileSync(edited, 'utf8').replace('--read-only', '--read-only --privileged'));
        expect(staleRecipes(copy)).to.deep.equal(['docs/ci/gitlab-ci.yml']);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    });

    it('docs/ci/README.md shows the run, approve and resume commands of the contract', () => {
      const blocks = [...read(README.output).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
      expect(blocks.flatMap(dockerCommands).map((words) => gateStep(README, words))).to.deep.equal(['run', 'approve', 'resume']);
    });

    it('quotes each word so that sh reads it back: references expanded, everything else literal', () => {
      const words = ['--tmpfs', '/tmp:rw,size=16m', 'a b', "it's", 'a"b', '$HOST_DIR/state', 'type=bind,src=${HOST_DIR},dst=/config', '`id`', '$(id)', '*'];
      const script = `printf '%s\\n' ${words.map(shellWord).join(' ')}`;
      const echoed = spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH, HOST_DIR: '/srv/ci job' } });
      expect(echoed.stdout.split('\n').slice(0, -1)).to.deep.equal(words.map((word) => word.replaceAll(/\$\{?HOST_DIR\}?/g, '/srv/ci job')));
      expect(words.map(shellWord).slice(0, 6)).to.deep.equal(['--tmpfs', '/tmp:rw,size=16m', '"a b"', `"it's"`, `'a"b'`, '"$HOST_DIR/state"']);
    });

    it('refuses to render a run flag that has no Kubernetes form', () => {
      expect(() => translateRunFlags([...contract.RUN_FLAGS, '--privileged'])).to.throw(/--privileged has no Kubernetes form/);
    });
  });

  for (const recipe of TEXT_RECIPES) {
    describe(recipe.output, () => {
      const text = () => read(recipe.output);

      it('every engine command is the gate\'s: runArguments of the contract for the recipe\'s folders and image', () => {
        const steps = new Set(scriptsOf(recipe, text()).flatMap(dockerCommands).map((words) => gateStep(recipe, words)));
        expect([...steps].filter((step) => ['run', 'approve', 'resume'].includes(step)).sort()).to.deep.equal(['approve', 'resume', 'run']);
      });

      it('every script is valid shell (sh -n) and treats exit 3 apart', () => {
        const scripts = scriptsOf(recipe, text());
        for (const script of scripts) expect(shellSyntaxProblems(script), script).to.deep.equal([]);
        expect(scripts.some((script) => /^\s*3\)$/m.test(script) && /paused/.test(script))).to.equal(true);
      });

      it('carries no credential value: credentials are forwarded by name only', () => {
        expect(secretProblems(text())).to.deep.equal([]);
        for (const words of scriptsOf(recipe, text()).flatMap(dockerCommands)) {
          words.forEach((word, index) => {
            if (word === '--env') expect(words[index + 1]).to.match(/^[A-Z_][A-Z0-9_]*$/);
          });
        }
      });
    });
  }

  it('the shell and secret checks bite: a broken script, a literal key and an --env value are refused', () => {
    expect(shellSyntaxProblems('case "$code" in\n  0) ;;\n')).to.have.length(1);
    expect(secretProblems('env:\n  OPENAI_API_KEY: sk-live1234567890\n')).to.have.length(2);
    expect(secretProblems('  token: abc\n')).to.have.length(1);
    expect(secretProblems('docker run --env OPENAI_API_KEY=abc image\n')).to.have.length(1);
    expect(secretProblems('OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}\nOPENAI_API_KEY: <+secrets.getValue("openai_api_key")>\n')).to.deep.equal([]);
  });

  describe('GitHub Actions', () => {
    it('passes the Actions workflow parser (@actions/workflow-parser) with no error', async () => {
      expect(await githubProblems(recipeText('github-actions.yml'))).to.deep.equal([]);
    });

    it('keeps /state whatever the outcome and gates the approval behind an environment', () => {
      const workflow = parse(recipeText('github-actions.yml'));
      const upload = workflow.jobs.run.steps.find((step: any) => step.with?.name === 'agentctl-state');
      expect(upload.if).to.equal('always()');
      expect(workflow.jobs.approve.if).to.equal("needs.run.outputs.state == 'paused'");
      expect(workflow.jobs.approve.environment).to.equal('agentctl-approval');
      expect(workflow.jobs.resume.needs).to.deep.equal(['run', 'approve']);
    });

    it('the parser refuses a broken workflow', async () => {
      const broken = recipeText('github-actions.yml').replace('    runs-on: ubuntu-latest\n', '    runs-onn: ubuntu-latest\n');
      expect(await githubProblems(broken)).to.deep.equal([
        "github-actions.yml (Line: 26, Col: 5): Unexpected value 'runs-onn'",
        'github-actions.yml (Line: 26, Col: 5): Required property is missing: runs-on',
      ]);
      expect(await githubProblems(recipeText('github-actions.yml').replace('needs: [run, approve]', 'needs: [run, approval]'))).to.have.length.above(0);
    });
  });

  describe('GitLab CI', () => {
    it('has its jobs\' stage, script and image, the kept /state, exit 3 as paused, a manual approve job and the resume job', () => {
      expect(gitlabProblems(recipeText('gitlab-ci.yml'))).to.deep.equal([]);
    });

    it('refuses a pipeline whose approve job is not manual, whose run job does not keep /state, or with a script line YAML reads as a mapping', () => {
      const text = recipeText('gitlab-ci.yml');
      expect(gitlabProblems(text.replace('  when: manual\n', ''))).to.deep.equal(['no manual approve job']);
      expect(gitlabProblems(text.replace('    when: always\n', '    when: on_success\n'))).to.deep.equal(['the run job does not keep /state as an artifact whatever the outcome']);
      expect(gitlabProblems(text.replace('    - |\n      if [ -z', '    - echo "not: a string"\n    - |\n      if [ -z'))).to.deep.equal(['agentctl:approve: a script line is not a string']);
    });
  });

  describe('Jenkins', () => {
    it('is a declarative pipeline with its required blocks, balanced, with credentials by withCredentials', () => {
      expect(jenkinsProblems(recipeText('Jenkinsfile'))).to.deep.equal([]);
    });

    it('refuses an unbalanced pipeline, an unclosed string and a pipeline without withCredentials', () => {
      const text = recipeText('Jenkinsfile');
      expect(jenkinsProblems(text.replace(/\}\n$/, '\n'))).to.deep.equal(['1 unclosed bracket(s)']);
      expect(jenkinsProblems(text.replace("sh '''\n", "sh '\n"))[0]).to.match(/unclosed|unbalanced/);
      expect(jenkinsProblems(text.replaceAll('withCredentials(', 'withSecrets('))).to.deep.equal(['no withCredentials block']);
    });
  });

  describe('Harness', () => {
    it('is a list of Run steps with an identifier, an image, a shell and a command', () => {
      expect(harnessProblems(recipeText('harness-run-step.yaml'))).to.deep.equal([]);
    });

    it('refuses a step without a command, and a repeated identifier', () => {
      const text = recipeText('harness-run-step.yaml');
      expect(harnessProblems(text.replace('identifier: agentctl_approve', 'identifier: agentctl_run'))).to.deep.equal(['agentctl_run: identifier missing, invalid or repeated']);
      const steps = parse(text);
      delete steps[2].step.spec.command;
      expect(harnessProblems(JSON.stringify(steps))).to.deep.equal(['agentctl_resume: no spec.command']);
    });
  });

  describe('Kubernetes', () => {
    const manifests = () => kubernetesFiles().flatMap((path) => parseAllDocuments(read(path)).map((document) => ({ path, value: document.toJS() })));

    it('every manifest passes the Kubernetes API schema of its kind (kubernetes-models) and holds no credential value', () => {
      for (const path of kubernetesFiles()) {
        expect(kubernetesProblems(read(path)), path).to.deep.equal([]);
        expect(secretProblems(read(path)), path).to.deep.equal([]);
      }
      expect(secretProblems(read(README.output))).to.deep.equal([]);
      expect(manifests().map(({ value }) => value.kind).sort()).to.deep.equal(['CronJob', 'Job', 'Job', 'Job', 'Job', 'PersistentVolumeClaim', 'PersistentVolumeClaim', 'PersistentVolumeClaim']);
    });

    it('a CronJob that forbids overlaps, one attempt per Job, and the contract\'s security in every pod', () => {
      const cronJob = manifests().find(({ value }) => value.kind === 'CronJob')!.value;
      expect(cronJob.spec.concurrencyPolicy).to.equal('Forbid');
      for (const { path, value } of manifests().filter(({ value }) => value.kind !== 'PersistentVolumeClaim')) {
        expect((value.kind === 'CronJob' ? value.spec.jobTemplate.spec : value.spec).backoffLimit, path).to.equal(0);
        const pod = podOf(value);
        const args = pod.containers[0]!.args;
        expect(podSecurityProblems(pod, reachesProvider(args) ? CREDENTIALS : []), path).to.deep.equal([]);
      }
    });

    it('each pod runs a step of the recipes with the contract\'s mounts, and uses only the claims pvc.yaml declares', () => {
      const claims = manifests().filter(({ value }) => value.kind === 'PersistentVolumeClaim').map(({ value }) => value.metadata.name);
      const steps = new Set<string>();
      for (const { path, value } of manifests().filter(({ value }) => value.kind !== 'PersistentVolumeClaim')) {
        const pod = podOf(value);
        const container = pod.containers[0]!;
        const step = Object.keys(STEPS).find((name) => JSON.stringify(STEPS[name]!((variable) => `$(${variable})`)) === JSON.stringify(container.args));
        expect(step, `${path}: ${container.args.join(' ')}`).to.be.a('string');
        steps.add(step!);
        for (const reference of container.args.join(' ').matchAll(/\$\(([A-Z_]+)\)/g)) expect(container.env?.map((entry) => entry.name), path).to.include(reference[1]);
        const mounts = container.volumeMounts.filter((mount) => mount.mountPath !== '/tmp').map((mount) => ({ target: mount.mountPath, readOnly: mount.readOnly === true }));
        expect(mounts, path).to.deep.equal(contract.MOUNTS.map((mount) => ({ target: mount.target, readOnly: mount.readOnly })));
        for (const volume of pod.volumes) if (volume.persistentVolumeClaim) expect(claims, path).to.include(volume.persistentVolumeClaim.claimName);
      }
      expect([...steps].sort()).to.deep.equal(['approve', 'list', 'resume', 'run']);
    });

    it('the schema and security checks refuse a broken manifest', () => {
      const text = read('docs/ci/kubernetes/cronjob.yaml');
      expect(kubernetesProblems(text.replace('backoffLimit: 0', 'backoffLimit: none'))).to.deep.equal(['CronJob: data/spec/jobTemplate/spec/backoffLimit must be integer']);
      expect(kubernetesProblems(text.replace('kind: CronJob', 'kind: CronJobs'))).to.deep.equal(['no schema for kind CronJobs']);
      const cronJob = parse(text);
      const container = podOf(cronJob).containers[0]!;
      container.securityContext = { ...container.securityContext, allowPrivilegeEscalation: true, readOnlyRootFilesystem: false };
      container.env = [{ name: 'OPENAI_API_KEY', value: 'inline' }];
      expect(podSecurityProblems(podOf(cronJob), CREDENTIALS)).to.deep.equal([
        'agentctl: privilege escalation allowed',
        'agentctl: root filesystem writable',
        'agentctl: OPENAI_API_KEY is not a secretKeyRef',
      ]);
    });
  });
});
