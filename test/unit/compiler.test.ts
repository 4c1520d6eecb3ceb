import { expect } from 'chai';
import { AgentctlError } from '../../sdk/index.js';
import { compileText } from '../../core/compiler/compile.js';
import { composeHost } from '../../core/cli/composition.js';

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

  it('rejects an unsupported apiVersion and agent tasks', async () => {
    const [version] = await diagnosticsOf(workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set" }]\n`).replace('agentctl.dev/v1', 'agentctl.dev/v2'));
    expect(version!.code).to.equal('AGENTCTL_E_API_VERSION');
    const [agent] = await diagnosticsOf(workflow(`${assignTasks}  tasks: [{ id: a, uses: "agent:helper" }]\n`));
    expect(agent!.code).to.equal('AGENTCTL_E_UNSUPPORTED');
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

  it('refuses memory references: nothing writes memory in this version', async () => {
    const [first] = await diagnosticsOf(workflow(`${assignTasks}  tasks: [{ id: a, uses: "action:set", with: { x: "\${{ memory.notes }}" } }]\n`));
    expect(first!.code).to.equal('AGENTCTL_E_UNSUPPORTED');
  });

  it('a YAML alias bomb is a syntax error, not a crash', async () => {
    const anchors = Array.from({ length: 120 }, () => `    - *a`).join('\n');
    const [first] = await diagnosticsOf(`apiVersion: agentctl.dev/v1\nx: &a [1]\ny:\n${anchors}\n`);
    expect(first!.code).to.equal('AGENTCTL_E_YAML_SYNTAX');
  });
});
