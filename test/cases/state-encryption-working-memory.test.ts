// Working memory on an encrypted database: the run's memory, each task's delta (in its checkpoint) and the memory a
// resumed or replayed run rebuilds are sealed like every protected value and read back through the key.
import { expect } from 'chai';
import { diagnosticWithCode, errorDocument, outcome } from './helpers.js';
import { encryptionCase, encryptionTools, expectNowhere, type Workspace } from './state-encryption-support.js';

describe('state encryption: working memory', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let keys: Record<string, string>;
  let canary: string;
  beforeEach(() => ({ ws, keys, canary } = encryptionCase()));
  afterEach(() => ws.cleanup());
  const { cli, withKeys, enable } = encryptionTools(() => ({ ws, keys, canary }));

  const memoryWorkflow = () =>
    ws.write(
      'memory.yaml',
      [
        'apiVersion: agentctl.dev/v1',
        'kind: Workflow',
        'metadata: { name: sealed-memory }',
        'spec:',
        '  inputs: { note: "" }',
        '  memory: { working: { seed: planted } }',
        '  actions:',
        '    remember: { kind: builtin.memory.write }',
        '    recall: { kind: builtin.memory.read }',
        '  tasks:',
        '    - { id: remember, uses: action:remember, with: { key: note, value: "${{ inputs.note }}" } }',
        '    - { id: recall, uses: action:recall, needs: [remember], with: { key: note } }',
        '  outputs: { note: "${{ memory.note }}", seed: "${{ memory.seed }}" }',
        '',
      ].join('\n'),
    );

  it('a run on an encrypted database keeps its memory sealed; inspect shows it, replay rebuilds it with the key, and no byte of the files holds it', () => {
    const file = memoryWorkflow();
    outcome(enable(), 0);
    const run = outcome(withKeys('run', file, '--input', `note=${canary}`), 0).data;
    expect(run.output).to.deep.equal({ note: canary, seed: 'planted' });
    const inspected = outcome(withKeys('inspect', run.runId), 0).data;
    expect(inspected.run.workingMemory).to.deep.equal({ seed: 'planted', note: canary });
    const replayed = outcome(withKeys('replay', run.runId), 0).data;
    expect(replayed.output).to.deep.equal(run.output);
    expect(outcome(withKeys('inspect', replayed.runId), 0).data.run.workingMemory).to.deep.equal({ seed: 'planted', note: canary });
    expectNowhere(ws.db, canary);
  });

  it('enable seals the memory of runs recorded before it, and a replay afterwards needs the key', () => {
    const file = memoryWorkflow();
    const run = outcome(cli({}, 'run', file, '--input', `note=${canary}`), 0).data;
    outcome(enable(), 0);
    expectNowhere(ws.db, canary);
    expect(outcome(withKeys('inspect', run.runId), 0).data.run.workingMemory).to.deep.equal({ seed: 'planted', note: canary });
    diagnosticWithCode(errorDocument(cli({}, 'replay', run.runId), 5), 'AGENTCTL_E_STATE_KEY_MISSING');
    expect(outcome(withKeys('replay', run.runId), 0).data.output).to.deep.equal({ note: canary, seed: 'planted' });
  });
});
