import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse } from 'yaml';
import { workflowJsonSchema } from '../../core/schema.js';
import { composeHost } from '../../core/cli/composition.js';
import { ROOT } from '../support/cli.js';

const Ajv2020 = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js').default;

describe('published JSON Schema', () => {
  const schema = workflowJsonSchema(composeHost());
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);

  it('is a draft 2020-12 schema that accepts every example', () => {
    expect(schema.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
    for (const name of readdirSync(join(ROOT, 'examples')).filter((file) => file.endsWith('.yaml'))) {
      const document = parse(readFileSync(join(ROOT, 'examples', name), 'utf8'));
      expect(validate(document), `${name}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    }
  });

  it('rejects unknown fields and unknown action kinds, as the compiler does', () => {
    const base = parse(readFileSync(join(ROOT, 'examples', 'hello.yaml'), 'utf8'));
    expect(validate({ ...base, extra: 1 })).to.equal(false);
    expect(validate({ ...base, spec: { ...base.spec, actions: { set: { kind: 'builtin.nope' } } } })).to.equal(false);
    expect(validate({ ...base, spec: { ...base.spec, actions: { run: { kind: 'builtin.shell.exec', command: 'ls', shell: true } } } })).to.equal(false);
  });

  it('includes spec.runtime.budgets and pricing, with the same bounds as the compiler', () => {
    const base = parse(readFileSync(join(ROOT, 'examples', 'hello.yaml'), 'utf8'));
    const withRuntime = (runtime: unknown) => ({ ...base, spec: { ...base.spec, runtime } });
    const rates = { inputMicrousdPerMillionTokens: 1, outputMicrousdPerMillionTokens: 2 };
    expect(validate(withRuntime({ budgets: { maxTasks: 3, maxWallTimeSeconds: 60, maxCostMicrousd: 5 }, pricing: { version: 'v1', models: { 'openai/gpt-5': rates } } }))).to.equal(true);
    expect(validate(withRuntime({ budgets: { maxTasks: 0 } }))).to.equal(false);
    expect(validate(withRuntime({ budgets: { maxTasks: 1.5 } }))).to.equal(false);
    expect(validate(withRuntime({ budgets: { maxTask: 3 } }))).to.equal(false);
    expect(validate(withRuntime({ pricing: { version: 'v1', models: { 'openai/gpt-5': { inputMicrousdPerMillionTokens: 1 } } } }))).to.equal(false);
  });

  it('describes every registered action kind', () => {
    expect(JSON.stringify(schema)).to.contain('builtin.shell.exec').and.to.contain('stdoutLimitBytes').and.to.contain('builtin.write');
  });
});
