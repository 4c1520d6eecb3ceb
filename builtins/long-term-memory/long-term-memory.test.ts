import { expect } from 'chai';
import { ActionKindTester, runAction } from '@agentctl/cli/testing';

// Each case runs on a fresh database, so its long-term memory starts empty (the `default` namespace of `sqlite`).
const EMPTY = { status: 'unchanged', changed: false, namespace: 'default' };

new ActionKindTester().run('builtin.long_term_memory.read', {
  valid: [
    {
      name: 'a key with no entry reads found: false and null',
      input: { key: 'missing' },
      output: { ...EMPTY, found: false, key: 'missing', value: null, entry: null, createdAt: null, updatedAt: null, expiresAt: null },
    },
  ],
  invalid: [
    { name: 'an empty key is refused at compile time', input: { key: '' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'toolsDeny applies', input: { key: 'k' }, policy: { toolsDeny: ['memory.read'] }, error: { code: 'AGENTCTL_E_POLICY_TOOL_DENIED' } },
  ],
});

new ActionKindTester().run('builtin.long_term_memory.search', {
  valid: [{ name: 'an empty namespace has no results', input: { query: 'anything' }, output: { ...EMPTY, query: 'anything', mode: 'text', count: 0, results: [] } }],
  invalid: [
    { name: 'a limit of 0 is refused', input: { query: 'x', limit: 0 }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a limit over 100 is refused', input: { query: 'x', limit: 101 }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'an unknown mode is refused', input: { query: 'x', mode: 'fuzzy' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
  ],
});

new ActionKindTester().run('builtin.long_term_memory.write', {
  valid: [],
  invalid: [
    { name: 'a write needs one of entry, content or value', input: { key: 'k' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'an empty text is refused', input: { key: 'k', content: { type: 'text', text: '' } }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'an empty metadata key is refused', input: { key: 'k', value: 1, metadata: { '': 1 } }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'approval: mutations with nonInteractive: fail refuses it', input: { key: 'k', value: 1 }, policy: { approval: 'mutations', nonInteractive: 'fail' }, error: { code: 'AGENTCTL_E_APPROVAL_REQUIRED' } },
  ],
});

describe('builtin.long_term_memory.write ledger', () => {
  it('records one external_mutate effect whose result names the entry', async () => {
    const result = await runAction('builtin.long_term_memory.write', { input: { key: 'greeting', content: { type: 'text', text: 'hello' } } });
    expect(result.state).to.equal('succeeded');
    expect(result.output).to.include({ status: 'changed', changed: true, namespace: 'default', key: 'greeting', expiresAt: null });
    const effects = result.inspection!.effects;
    expect(effects).to.have.length(1);
    expect(effects[0]).to.include({ operation: 'long_term_memory.write', effectClass: 'external_mutate', state: 'succeeded' });
  });
});

new ActionKindTester().run('builtin.long_term_memory.promote', {
  valid: [
    { name: 'a given value is written to working memory: changed, before null', input: { key: 'recalled', value: { topic: 'billing' } }, output: { status: 'changed', changed: true, before: null, after: { topic: 'billing' }, key: 'recalled' } },
    { name: 'value defaults to null, as in the reference implementation', input: { key: 'recalled' }, output: { status: 'changed', changed: true, before: null, after: null, key: 'recalled' } },
  ],
  invalid: [
    { name: 'an entry the namespace does not hold fails its effect', input: { key: 'recalled', from: 'missing' }, error: { code: 'AGENTCTL_E_MEMORY_ENTRY_NOT_FOUND' } },
    { name: 'value and from together are refused', input: { key: 'recalled', value: 1, from: 'k' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'an empty from is refused', input: { key: 'recalled', from: '' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'an empty key is refused', input: { key: '', value: 1 }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'toolsDeny applies to memory.promote', input: { key: 'recalled', value: 1 }, policy: { toolsDeny: ['memory.promote'] }, error: { code: 'AGENTCTL_E_POLICY_TOOL_DENIED' } },
  ],
});

describe('builtin.long_term_memory.promote ledger', () => {
  it('records one internal_state effect and no store access for a given value', async () => {
    const result = await runAction('builtin.long_term_memory.promote', { input: { key: 'recalled', value: 'hello' } });
    expect(result.state).to.equal('succeeded');
    const effects = result.inspection!.effects;
    expect(effects).to.have.length(1);
    expect(effects[0]).to.include({ operation: 'long_term_memory.promote', effectClass: 'internal_state', state: 'succeeded' });
  });
});
