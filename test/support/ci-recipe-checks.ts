// The checks of docs/ci/'s recipes, one per platform, each returning the problems it finds (an empty list when the
// recipe passes), so the tests can also run each one on a broken sample and see it bite.
import { spawnSync } from 'node:child_process';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { parse, parseAllDocuments } from 'yaml';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

/** The GitHub workflow, through the Actions workflow parser: schema, expressions, then the job graph. */
export async function githubProblems(text: string): Promise<string[]> {
  const result = parseWorkflow({ name: 'github-actions.yml', content: text }, new NoOperationTraceWriter());
  const problems = result.context.errors.getErrors().map((error) => error.message);
  if (result.value === undefined) return problems.length > 0 ? problems : ['the parser returned no workflow'];
  const template = await convertWorkflowTemplate(result.context, result.value);
  return [...new Set([...problems, ...(template.errors ?? []).map((error) => error.Message)])];
}

const MODELS: Record<string, { apiVersion: string; validate: (value: object) => void }> = {
  CronJob: { apiVersion: 'batch/v1', validate: (value) => new CronJob(value as never).validate() },
  Job: { apiVersion: 'batch/v1', validate: (value) => new Job(value as never).validate() },
  PersistentVolumeClaim: { apiVersion: 'v1', validate: (value) => new PersistentVolumeClaim(value as never).validate() },
};

/** Each document of a Kubernetes manifest, validated against the API schema of its kind (kubernetes-models). */
export function kubernetesProblems(text: string): string[] {
  const problems: string[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) {
      problems.push(...document.errors.map((error) => error.message));
      continue;
    }
    const value = document.toJS() as { apiVersion?: string; kind?: string };
    const model = MODELS[value.kind ?? ''];
    if (!model) problems.push(`no schema for kind ${value.kind}`);
    else if (value.apiVersion !== model.apiVersion) problems.push(`${value.kind} is ${model.apiVersion}, not ${value.apiVersion}`);
    else {
      try {
        model.validate(value);
      } catch (error) {
        problems.push(`${value.kind}: ${(error as Error).message}`);
      }
    }
  }
  return problems;
}

interface Container {
  name: string;
  args: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  securityContext?: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
export interface PodSpec {
  securityContext?: Record<string, unknown>;
  containers: Container[];
  volumes: ({ name: string } & Record<string, any>)[];
}

/** The pod of a Job or CronJob. */
export function podOf(manifest: any): PodSpec {
  return (manifest.kind === 'CronJob' ? manifest.spec.jobTemplate.spec : manifest.spec).template.spec;
}

/** What the contract asks of every agentctl pod: non-root 65532, no escalation, no capability, read-only root. */
export function podSecurityProblems(pod: PodSpec, credentials: readonly string[]): string[] {
  const problems: string[] = [];
  const expect = (ok: boolean, problem: string) => ok || problems.push(problem);
  const podContext = pod.securityContext ?? {};
  expect(podContext.runAsNonRoot === true && podContext.runAsUser === 65532 && podContext.runAsGroup === 65532, 'pod: not runAsNonRoot as 65532:65532');
  expect(podContext.fsGroup === 65532, 'pod: volumes not given to group 65532 (fsGroup)');
  for (const container of pod.containers) {
    const context = container.securityContext ?? {};
    expect(context.runAsNonRoot === true && context.runAsUser === 65532 && context.runAsGroup === 65532, `${container.name}: not runAsNonRoot as 65532:65532`);
    expect(context.allowPrivilegeEscalation === false, `${container.name}: privilege escalation allowed`);
    expect(context.readOnlyRootFilesystem === true, `${container.name}: root filesystem writable`);
    expect(JSON.stringify((context.capabilities as { drop?: unknown })?.drop) === '["ALL"]', `${container.name}: capabilities not dropped`);
    const volumeOf = (path: string) => pod.volumes.find((volume) => volume.name === container.volumeMounts.find((mount) => mount.mountPath === path)?.name);
    expect(volumeOf('/state')?.persistentVolumeClaim?.claimName !== undefined, `${container.name}: /state is not a PVC`);
    expect(volumeOf('/config')?.configMap?.name !== undefined, `${container.name}: /config is not a ConfigMap`);
    expect(container.volumeMounts.find((mount) => mount.mountPath === '/config')?.readOnly === true, `${container.name}: /config is writable`);
    expect(volumeOf('/tmp')?.emptyDir?.sizeLimit === '16Mi', `${container.name}: /tmp is not an emptyDir of 16Mi`);
    for (const name of credentials) {
      const variable = container.env?.find((entry) => entry.name === name);
      expect(variable?.value === undefined && variable?.valueFrom?.secretKeyRef?.name !== undefined, `${container.name}: ${name} is not a secretKeyRef`);
    }
  }
  return problems;
}

const RESERVED = new Set(['stages', 'default', 'variables', 'include', 'workflow', 'image', 'services', 'cache', 'before_script', 'after_script']);
/** The GitLab pipeline: jobs with a stage, a script and an image; the run, manual approve and resume jobs. */
export function gitlabProblems(text: string): string[] {
  const problems: string[] = [];
  const expect = (ok: boolean, problem: string) => ok || problems.push(problem);
  const pipeline = parse(text) as Record<string, any>;
  const stages: string[] = pipeline.stages ?? [];
  const jobs = Object.entries(pipeline).filter(([name]) => !RESERVED.has(name) && !name.startsWith('.'));
  for (const line of pipeline.default?.before_script ?? []) expect(typeof line === 'string', 'default: a before_script line is not a string');
  for (const [name, job] of jobs) {
    expect(stages.includes(job.stage), `${name}: stage ${job.stage} is not in stages`);
    expect(Array.isArray(job.script) && job.script.length > 0, `${name}: no script`);
    // A plain YAML scalar holding `: ` becomes a mapping, which GitLab refuses: every line must be a string.
    for (const field of ['before_script', 'script', 'after_script']) {
      for (const line of job[field] ?? []) expect(typeof line === 'string', `${name}: a ${field} line is not a string`);
    }
    expect(typeof (job.image ?? pipeline.default?.image) === 'string', `${name}: no image`);
    for (const need of job.needs ?? []) expect(jobs.some(([other]) => other === (need.job ?? need)), `${name}: needs an unknown job ${need}`);
  }
  const scriptOf = (job: any) => (job?.script ?? []).join('\n');
  const run = jobs.find(([, job]) => / run \/config\//.test(scriptOf(job)))?.[1];
  expect(run !== undefined, 'no job runs the workflow');
  expect(run?.artifacts?.when === 'always' && (run?.artifacts?.paths ?? []).some((path: string) => path.includes('state')), 'the run job does not keep /state as an artifact whatever the outcome');
  expect(/^\s*3\)/m.test(scriptOf(run)) && (run?.allow_failure?.exit_codes ?? []).includes(3), 'the run job does not treat exit 3 as paused');
  const approve = jobs.find(([, job]) => /approvals approve/.test(scriptOf(job)))?.[1];
  expect(approve?.when === 'manual', 'no manual approve job');
  const resume = jobs.find(([, job]) => / resume "/.test(scriptOf(job)))?.[1];
  expect(resume !== undefined, 'no resume job');
  return problems;
}

/** Unbalanced brackets or an unclosed string or comment of a Groovy text, outside strings and comments. */
export function groovyBalanceProblems(text: string): string[] {
  const closing: Record<string, string> = { '}': '{', ')': '(', ']': '[' };
  const open: string[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const rest = text.slice(index);
    const quote = ["'''", '"""', "'", '"'].find((mark) => rest.startsWith(mark));
    if (rest.startsWith('//')) index = text.includes('\n', index) ? text.indexOf('\n', index) : text.length;
    else if (rest.startsWith('/*')) {
      const end = text.indexOf('*/', index + 2);
      if (end < 0) return ['an unclosed comment'];
      index = end + 1;
    } else if (quote) {
      let end = index + quote.length;
      while (end < text.length && !text.startsWith(quote, end)) end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) return [`an unclosed ${quote} string`];
      index = end + quote.length - 1;
    } else if ('{(['.includes(text[index]!)) open.push(text[index]!);
    else if (text[index]! in closing && open.pop() !== closing[text[index]!]) return [`an unbalanced ${text[index]} at offset ${index}`];
  }
  return open.length > 0 ? [`${open.length} unclosed bracket(s)`] : [];
}

/** The declarative Jenkins pipeline's required blocks, and balance. */
export function jenkinsProblems(text: string): string[] {
  const required: [string, RegExp][] = [
    ['pipeline', /^pipeline \{/m],
    ['agent', /^\s*agent\s/m],
    ['stages', /^\s*stages \{/m],
    ['stage', /^\s*stage\('[^']+'\) \{/m],
    ['steps', /^\s*steps \{/m],
    ['withCredentials', /withCredentials\(\[string\(credentialsId: '[^']+', variable: '[A-Z_]+'\)\]\) \{/],
    ['post', /^\s*post \{/m],
    ['input', /^\s*input \{/m],
  ];
  return [...groovyBalanceProblems(text), ...required.filter(([, pattern]) => !pattern.test(text)).map(([name]) => `no ${name} block`)];
}

/** The shell scripts of a Jenkinsfile: its sh ''' ... ''' bodies, with Groovy's backslash-newline continuation. */
export function jenkinsScripts(text: string): string[] {
  return [...text.matchAll(/sh '''\n([\s\S]*?)'''/g)].map((match) => match[1]!.replace(/\\\n/g, ''));
}

/** The Harness Run steps: each a Run with a valid identifier, an image, a shell and a command. */
export function harnessProblems(text: string): string[] {
  const problems: string[] = [];
  const steps = parse(text) as { step?: any }[];
  if (!Array.isArray(steps) || steps.length === 0) return ['not a list of steps'];
  const identifiers = new Set<string>();
  for (const { step } of steps) {
    const name = step?.identifier ?? '?';
    if (step?.type !== 'Run') problems.push(`${name}: not a Run step`);
    if (!/^[a-zA-Z_][0-9a-zA-Z_]{0,127}$/.test(step?.identifier ?? '') || identifiers.has(step.identifier)) problems.push(`${name}: identifier missing, invalid or repeated`);
    identifiers.add(step?.identifier);
    if (typeof step?.name !== 'string') problems.push(`${name}: no name`);
    for (const field of ['image', 'shell', 'command']) if (typeof step?.spec?.[field] !== 'string') problems.push(`${name}: no spec.${field}`);
  }
  return problems;
}

/** A value that reads like a credential, or a credential variable given a value instead of a reference. */
export function secretProblems(text: string): string[] {
  const problems: string[] = [];
  // A reference to a platform's secret, an empty value, or a boolean or number (`automountServiceAccountToken: false`).
  const REFERENCE = /^(\$\{\{ secrets\.[A-Za-z_]+ \}\}|<\+secrets\.getValue\("[a-z_.]+"\)>|''|""|true|false|\d+)$/;
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (/\b(sk-[A-Za-z0-9_-]{6,}|ghp_[A-Za-z0-9]{10,}|xox[bp]-[A-Za-z0-9-]+|AKIA[0-9A-Z]{16})/.test(line)) problems.push(`${where}: a secret-looking literal`);
    const assignment = /^\s*-?\s*([A-Za-z_-]*(?:token|password|api[_-]?key|secret)[A-Za-z_-]*)\s*[:=]\s*(\S.*)$/i.exec(line);
    if (assignment && !REFERENCE.test(assignment[2]!.trim())) problems.push(`${where}: ${assignment[1]} has a value`);
    if (/--env\s+[A-Za-z_][A-Za-z0-9_]*=/.test(line)) problems.push(`${where}: --env with a value`);
  });
  return problems;
}

/** Shell syntax of one script, checked by `sh -n` (nothing runs). */
export function shellSyntaxProblems(script: string): string[] {
  const result = spawnSync('sh', ['-n'], { input: script, encoding: 'utf8' });
  return result.status === 0 ? [] : [result.stderr.trim() || `sh -n exited ${result.status}`];
}

/**
 * The words of every `docker run` command of a script, as the shell reads them: quotes removed, `$NAME` left as
 * written (the test compares with what the contract renders for the same host folders), up to a redirection.
 */
export function dockerCommands(script: string): string[][] {
  const commands: string[][] = [];
  for (const match of script.matchAll(/(?<=^|[\s;|&(])docker run\b/g)) {
    const words: string[] = [];
    let current: string | undefined;
    const text = script.slice(match.index);
    for (let index = 0; index < text.length; index += 1) {
      const char = text[index]!;
      if (char === '\\' && text[index + 1] === '\n') index += 1;
      else if (char === '\n' || '>|&;'.includes(char)) break;
      else if (/\s/.test(char)) {
        if (current !== undefined) words.push(current);
        current = undefined;
      } else if (char === "'" || char === '"') {
        const end = text.indexOf(char, index + 1);
        current = (current ?? '') + text.slice(index + 1, end);
        index = end;
      } else current = (current ?? '') + char;
    }
    if (current !== undefined) words.push(current);
    commands.push(words);
  }
  return commands;
}
