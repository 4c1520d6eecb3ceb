import { expect } from 'chai';
import { parseTemplate, renderString, renderValue, TemplateError, type TemplateScope } from '../../core/compiler/templates.js';

const scope: TemplateScope = {
  inputs: { name: 'Ada', count: 3, on: true, list: [1, 2], nested: { deep: 'x' }, nothing: null },
  vars: { greeting: 'hi' },
  memory: {},
  tasks: { a: { output: { n: 5, text: 'done', obj: { k: 1 } } } },
};

describe('templates', () => {
  it('keeps the JSON type of a whole-string template', () => {
    expect(renderString('${{ inputs.count }}', scope)).to.equal(3);
    expect(renderString('${{inputs.list}}', scope)).to.deep.equal([1, 2]);
    expect(renderString('${{ tasks.a.output.obj }}', scope)).to.deep.equal({ k: 1 });
    expect(renderString('${{ inputs.nothing }}', scope)).to.equal(null);
  });

  it('renders scalars inside text', () => {
    expect(renderString('hello ${{ inputs.name }}, ${{ inputs.count }} ${{ inputs.on }}', scope)).to.equal('hello Ada, 3 true');
    expect(renderString('${{ vars.greeting }} ${{ inputs.nested.deep }}', scope)).to.equal('hi x');
  });

  it('refuses objects inside text', () => {
    expect(() => renderString('x ${{ inputs.list }}', scope)).to.throw(TemplateError, /only scalars/);
  });

  it('evaluates comparisons and not', () => {
    expect(renderString('${{ inputs.count > 2 }}', scope)).to.equal(true);
    expect(renderString('${{ inputs.count <= 2 }}', scope)).to.equal(false);
    expect(renderString("${{ inputs.name == 'Ada' }}", scope)).to.equal(true);
    expect(renderString('${{ inputs.name != "Ada" }}', scope)).to.equal(false);
    expect(renderString('${{ not inputs.on }}', scope)).to.equal(false);
    expect(renderString('${{ not inputs.count == 3 }}', scope)).to.equal(false);
    expect(renderString('${{ inputs.nothing == null }}', scope)).to.equal(true);
  });

  it('refuses ordering comparisons of mixed types and not on non-booleans', () => {
    expect(() => renderString("${{ inputs.count < 'a' }}", scope)).to.throw(TemplateError, /two numbers or two strings/);
    expect(() => renderString('${{ not inputs.count }}', scope)).to.throw(TemplateError, /needs a boolean/);
  });

  it('a missing path is an error, never an empty string', () => {
    expect(() => renderString('${{ inputs.missing }}', scope)).to.throw(TemplateError, /inputs.missing" does not exist/);
    expect(() => renderString('${{ inputs.list.0 }}', scope)).to.throw(TemplateError, /does not exist/);
  });

  it('rejects functions, indexing, unknown roots, bad literals and unclosed templates', () => {
    for (const bad of ['${{ len(inputs.x) }}', '${{ inputs.x[0] }}', '${{ env.HOME }}', '${{ inputs.x == bare }}', '${{ inputs.x', '${{ }}', '${{ inputs.x + 1 }}']) {
      expect(() => parseTemplate(bad), bad).to.throw(TemplateError);
    }
  });

  it('renders nested values and leaves plain strings alone', () => {
    expect(renderValue({ a: ['${{ inputs.count }}', 'plain'], b: { c: '${{ tasks.a.output.text }}!' } }, scope)).to.deep.equal({ a: [3, 'plain'], b: { c: 'done!' } });
  });
});
