import { expect } from 'chai';
import { AgentctlError } from '@agentctl/sdk';
import { compileText } from '../../core/compiler/compile.js';
import { composeHost } from '../../core/cli/composition.js';
import { workflowEnvelope } from '../../core/compiler/envelope.js';
import { CORE_SPEC_KEYS } from '../../core/spec-keys.js';

const host = composeHost();

const workflow = (spec: string) => `apiVersion: agentctl.dev/v1
kind: Workflow
metadata:
  name: sample
spec:
${spec}`;

async function diagnosticsOf(text: string) {
  try {
    await compileText(host, 'w.yaml', text);
  } catch (error) {
    expect(error).to.be.instanceOf(AgentctlError);
    return (error as AgentctlError).diagnostics;
  }
  throw new Error('expected the document to be rejected');
}

const assignTasks = `  actions:
    set: { kind: builtin.assign }
`;

describe('compiler', () => {
  it("the core's own spec keys, which plugins' sections may not take, are exactly the envelope's spec sections", () => {
    expect([...CORE_SPEC_KEYS].sort()).to.deep.equal(Object.keys(workflowEnvelope.shape.spec.shape).sort());
  });

  it('compiles a valid workflow into a stable plan', async () => {
    const { plan } = await compileText(
      host,
      'w.yaml',
      workflow(`  inputs: { who: world }
${assignTasks}  tasks:
    - id: second
      uses: action:set
      needs: [first]
      with: { v: "\${{ tasks.first.output.v }}" }
    - id: first
      uses: action:set
      with: { v: "\${{ inputs.who }}" }
  outputs: { v: "\${{ tasks.second.output.v }}" }
`),
      { inputs: { who: 'you' } },
    );
    expect(plan.tasks.map((task) => task.id)).to.deep.equal(['first', 'second']);
    expect(plan.inputs).to.deep.equal({ who: 'you' });
    expect(plan.policy).to.include({ approval: 'mutations', nonInteractive: 'pause', workspaceRoot: '.' });
    expect(plan.runtime).to.deep.equal({ maxConcurrency: 1, defaultTimeoutSeconds: 120 });
    expect(plan.tasks[0]!.profile).to.deep.equal({ effectClass: 'pure', risk: 'low', idempotency: 'pure' });
  });

  it('accepts the v1alpha1 alias', async () => {
    const { plan } = await compileText(host, 'w.yaml', workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`).replace('agentctl.dev/v1', 'agentctl.dev/v1alpha1'));
    expect(plan.apiVersion).to.equal('agentctl.dev/v1alpha1');
  });

  it('points an unknown field at its key', async () => {
    const [first] = await diagnosticsOf(workflow(`${assignTasks}  tasks:\n    - id: a\n      uses: action:set\n      bogus: 1\n`));
    expect(first).to.include({ code: 'AGENTCTL_E_UNKNOWN_FIELD', line: 11, column: 7, path: 'spec.tasks[0].bogus', file: 'w.yaml' });
  });

  it('rejects an unknown field inside an action using the kind schema', async () => {
    const [first] = await diagnosticsOf(workflow(`  actions:\n    run: { kind: builtin.shell.exec, command: echo, shell: true }\n  tasks: [{ id: a, uses: "action:run" }]\n`));
    expect(first).to.include({ code: 'AGENTCTL_E_UNKNOWN_FIELD', path: 'spec.actions.run.shell', line: 7 });
  });

  it('collects several problems at once', async () => {
    const diagnostics = await diagnosticsOf(
      workflow(`${assignTasks}  tasks:
    - { id: a, uses: "action:set", needs: [ghost] }
    - { id: a, uses: "action:nothing" }
    - { id: c, uses: "action:set", with: { x: "\${{ tasks.a.output.x }}" } }
`),
    );
    expect(diagnostics.map((item) => item.code)).to.have.members([
      'AGENTCTL_E_UNKNOWN_DEPENDENCY',
      'AGENTCTL_E_DUPLICATE_TASK',
      'AGENTCTL_E_UNKNOWN_ACTION',
      'AGENTCTL_E_TEMPLATE_REFERENCE',
    ]);
  });

  it('reports a cycle with its path', async () => {
    const [first] = await diagnosticsOf(workflow(`${assignTasks}  tasks:\n    - { id: a, uses: "action:set", needs: [b] }\n    - { id: b, uses: "action:set", needs: [a] }\n`));
    expect(first!.code).to.equal('AGENTCTL_E_DEPENDENCY_CYCLE');
    expect(first!.message).to.match(/a → b → a|b → a → b/);
    expect(first!.line).to.equal(9);
  });

  it('reports YAML syntax errors with a position', async () => {
    const [first] = await diagnosticsOf('apiVersion: agentctl.dev/v1\nkind: [unclosed\n');
    expect(first!.code).to.equal('AGENTCTL_E_YAML_SYNTAX');
    expect(first!.line).to.be.a('number');
    expect(first!.column).to.be.a('number');
  });

  it('rejects duplicate keys', async () => {
    const [first] = await diagnosticsOf('apiVersion: agentctl.dev/v1\napiVersion: agentctl.dev/v1\n');
    expect(first!.code).to.equal('AGENTCTL_E_YAML_SYNTAX');
  });

  it('rejects an unsupported apiVersion and a task of an undeclared agent', async () => {
    const [version] = await diagnosticsOf(workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`).replace('agentctl.dev/v1', 'agentctl.dev/v2'));
    expect(version!.code).to.equal('AGENTCTL_E_API_VERSION');
    const [agent] = await diagnosticsOf(workflow(`${assignTasks}  tasks: [{ id: a, uses: "agent:helper" }]\n`));
    expect(agent!.code).to.equal('AGENTCTL_E_UNKNOWN_ACTION');
    expect(agent!.message).to.contain('not declared in spec.agents');
  });

  it('requires when to be one whole template', async () => {
    const [first] = await diagnosticsOf(workflow(`  inputs: { on: true }\n${assignTasks}  tasks: [{ id: a, uses: "action:set", when: "x \${{ inputs.on }}" }]\n`));
    expect(first!.code).to.equal('AGENTCTL_E_TEMPLATE_SYNTAX');
  });

  it('refuses templates in inputs and vars', async () => {
    const [first] = await diagnosticsOf(workflow(`  inputs: { a: "\${{ vars.b }}" }\n  vars: { b: 1 }\n${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`));
    expect(first!.code).to.equal('AGENTCTL_E_TEMPLATE_NOT_ALLOWED');
  });

  it('refuses undeclared inputs from the caller', async () => {
    const text = workflow(`  inputs: { a: 1 }\n${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`);
    try {
      await compileText(host, 'w.yaml', text, { inputs: { b: 2 } });
      expect.fail('expected a rejection');
    } catch (error) {
      expect((error as AgentctlError).code).to.equal('AGENTCTL_E_INPUT_INVALID');
    }
  });

  it('checks limits: maxConcurrency, retry and timeouts', async () => {
    const diagnostics = await diagnosticsOf(
      workflow(`  runtime: { maxConcurrency: 65 }\n${assignTasks}  tasks: [{ id: a, uses: "action:set", retry: { maxAttempts: 21 }, timeoutSeconds: 0 }]\n`),
    );
    expect(diagnostics.map((item) => item.path)).to.have.members(['spec.runtime.maxConcurrency', 'spec.tasks[0].retry.maxAttempts', 'spec.tasks[0].timeoutSeconds']);
  });

  it('refuses templates where they would stay literal: policy, metadata, keys', async () => {
    const diagnostics = await diagnosticsOf(
      workflow(`  inputs: { dir: out }\n  policy: { writableRoots: ["\${{ inputs.dir }}"] }\n${assignTasks}  tasks: [{ id: a, uses: "action:set", with: { "\${{ inputs.dir }}": 1 } }]\n`).replace('name: sample', 'name: sample\n  description: "\${{ inputs.dir }}"'),
    );
    expect(diagnostics.map((item) => `${item.code} ${item.path}`)).to.have.members([
      'AGENTCTL_E_TEMPLATE_NOT_ALLOWED metadata.description',
      'AGENTCTL_E_TEMPLATE_NOT_ALLOWED spec.policy.writableRoots[0]',
      'AGENTCTL_E_TEMPLATE_NOT_ALLOWED spec.tasks[0].with.${{ inputs.dir }}',
    ]);
  });

  it('refuses a memory reference that neither spec.memory.working nor a task it needs provides', async () => {
    const [first] = await diagnosticsOf(workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set", with: { x: "\${{ memory.notes }}" } }]\n`));
    expect(first!.code).to.equal('AGENTCTL_E_MEMORY_KEY_UNKNOWN');
    expect(first!.path).to.equal('spec.tasks[0].with.x');
  });

  it('reports schema errors in tasks and in actions, unknown kinds and template references in one pass', async () => {
    const diagnostics = await diagnosticsOf(
      workflow(`  inputs: { who: x }
  actions:
    set: { kind: builtin.assign }
    run: { kind: builtin.shell.exec, command: echo, shell: true }
    other: { kind: builtin.nope }
  tasks:
    - { id: a, uses: "action:set", bogus: 1 }
    - { id: b, uses: "action:set", needs: [ghost], with: { v: "\${{ inputs.nobody }}" } }
    - { id: c, uses: "action:run", with: { x: "\${{ tasks.a.output.output }}" } }
`),
    );
    expect(diagnostics.map((item) => `${item.code} ${item.path}`)).to.have.members([
      'AGENTCTL_E_UNKNOWN_FIELD spec.tasks[0].bogus',
      'AGENTCTL_E_UNKNOWN_FIELD spec.actions.run.shell',
      'AGENTCTL_E_UNKNOWN_ACTION_KIND spec.actions.other.kind',
      'AGENTCTL_E_UNKNOWN_DEPENDENCY spec.tasks[1].needs[0]',
      'AGENTCTL_E_TEMPLATE_REFERENCE spec.tasks[1].with.v',
      'AGENTCTL_E_TEMPLATE_REFERENCE spec.tasks[2].with.x',
    ]);
  });

  it('an unknown field gets "did you mean" when a known field is close', async () => {
    const [task] = await diagnosticsOf(workflow(`${assignTasks}  tasks:\n    - { id: a, uses: "action:set" }\n    - { id: b, uses: "action:set", neds: [a] }\n`));
    expect(task).to.include({ code: 'AGENTCTL_E_UNKNOWN_FIELD', path: 'spec.tasks[1].neds' });
    expect(task!.help).to.match(/^did you mean "needs"\?/);
    const [action] = await diagnosticsOf(workflow(`  actions:\n    run: { kind: builtin.shell.exec, command: echo, agrs: [x] }\n  tasks: [{ id: a, uses: "action:run" }]\n`));
    expect(action).to.include({ code: 'AGENTCTL_E_UNKNOWN_FIELD', path: 'spec.actions.run.agrs' });
    expect(action!.help).to.match(/^did you mean "args"\?/);
    const [far] = await diagnosticsOf(workflow(`${assignTasks}  tasks:\n    - { id: a, uses: "action:set", zzzzzz: 1 }\n`));
    expect(far!.help).not.to.match(/did you mean/);
  });

  it('a missing required field says "missing"', async () => {
    const [uses] = await diagnosticsOf(workflow(`${assignTasks}  tasks:\n    - id: a\n`));
    expect(uses).to.include({ code: 'AGENTCTL_E_SCHEMA', path: 'spec.tasks[0].uses', message: 'spec.tasks[0]: missing required field "uses"', line: 9 });
    const [command] = await diagnosticsOf(workflow(`  actions:\n    run: { kind: builtin.shell.exec }\n  tasks: [{ id: a, uses: "action:run" }]\n`));
    expect(command).to.include({ path: 'spec.actions.run.command', message: 'spec.actions.run: missing required field "command"' });
    const [version] = await diagnosticsOf(workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`).replace('apiVersion: agentctl.dev/v1\n', ''));
    expect(version).to.include({ code: 'AGENTCTL_E_API_VERSION', message: 'the document: missing required field "apiVersion"' });
  });

  it('refuses a __proto__ key with a scalar value as an unknown field, in actions too', async () => {
    for (const [text, path] of [
      [workflow(`  actions:\n    set: { kind: builtin.assign, __proto__: 1 }\n  tasks: [{ id: a, uses: "action:set" }]\n`), 'spec.actions.set.__proto__'],
      [workflow(`  actions:\n    run: { kind: builtin.shell.exec, command: echo, __proto__: 1 }\n  tasks: [{ id: a, uses: "action:run" }]\n`), 'spec.actions.run.__proto__'],
      [workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set", __proto__: 1 }]\n`), 'spec.tasks[0].__proto__'],
      [workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set", with: { __proto__: 1 } }]\n`), 'spec.tasks[0].with.__proto__'],
    ] as const) {
      const diagnostics = await diagnosticsOf(text);
      expect(diagnostics.map((item) => `${item.code} ${item.path}`), path).to.deep.equal([`AGENTCTL_E_UNKNOWN_FIELD ${path}`]);
    }
  });

  it('allows YAML aliases; a generated file with 52 aliases (anchors holding aliases) passes', async () => {
    const tasks = Array.from({ length: 52 }, (_, index) => `    - { id: t${index}, uses: "action:set", with: *w }`).join('\n');
    const text = workflow(`  vars: { base: &b [1, 2, 3] }\n${assignTasks}  tasks:\n    - id: first\n      uses: action:set\n      with: &w { a: *b, b: *b, c: *b }\n${tasks}\n`);
    const { plan } = await compileText(host, 'w.yaml', text);
    expect(plan.tasks).to.have.length(53);
    expect(plan.tasks[52]!.with).to.deep.equal({ a: [1, 2, 3], b: [1, 2, 3], c: [1, 2, 3] });
  });

  it('refuses an alias expansion beyond 4 MiB of JSON without materialising it', async () => {
    const anchors = Array.from({ length: 4 }, (_, index) => `    a${index}: &a${index} "${'x'.repeat(20000)}"`).join('\n');
    const aliases = Array.from({ length: 4 }, (_, index) => `        k${index}: [${Array.from({ length: 60 }, () => `*a${index}`).join(', ')}]`).join('\n');
    const text = workflow(`  vars:\n${anchors}\n${assignTasks}  tasks:\n    - id: t\n      uses: action:set\n      with:\n${aliases}\n`);
    const started = performance.now();
    const [first] = await diagnosticsOf(text);
    expect(performance.now() - started).to.be.below(2000);
    expect(first).to.include({ code: 'AGENTCTL_E_DOCUMENT_TOO_LARGE', file: 'w.yaml' });
    expect(first!.message).to.match(/expands to more than 4194304 bytes/);
    expect(first!.line).to.be.above(10);
  });

  it('refuses aliases that loop or nest too deep once expanded, and a document that nests too deep to parse', async () => {
    const [loop] = await diagnosticsOf(workflow(`  vars: { x: &x [*x] }\n${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`));
    expect(loop).to.include({ code: 'AGENTCTL_E_YAML_SYNTAX' });
    expect(loop!.message).to.match(/refers to the node that contains it/);
    const nest = (depth: number, inner: string) => '['.repeat(depth) + inner + ']'.repeat(depth);
    const [deep] = await diagnosticsOf(workflow(`  vars: { a: &a ${nest(40, '1')}, b: ${nest(30, '*a')} }\n${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`));
    expect(deep!.message).to.match(/nested more than 64 levels deep once alias \*a is expanded/);
    const [parser] = await diagnosticsOf(workflow(`  vars: { a: ${nest(100000, '1')} }\n`));
    expect(parser).to.include({ code: 'AGENTCTL_E_YAML_SYNTAX', message: 'the document nests too deeply to be parsed; at most 64 levels are allowed' });
  });

  it('a file with more than one YAML document gets a diagnostic in our words', async () => {
    const [first] = await diagnosticsOf(`${workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`)}---\nkind: Other\n`);
    expect(first).to.include({ code: 'AGENTCTL_E_YAML_SYNTAX', line: 9, column: 1 });
    expect(first!.message).to.equal('the file holds more than one YAML document (a --- separator after content); a workflow is exactly one document');
  });
});
