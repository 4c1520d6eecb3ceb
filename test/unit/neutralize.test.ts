import { expect } from 'chai';
import { neutralize } from '../../core/cli/output.js';

describe('neutralize', () => {
  it('turns control characters and bidirectional overrides into visible escapes, keeping newlines and tabs', () => {
    expect(neutralize('a\u001b[31mred\r\n\tb\u0000\u007f\u009b\u202e')).to.equal('a\\u001b[31mred\\u000d\n\tb\\u0000\\u007f\\u009b\\u202e');
  });

  it('breaks CI command sequences at the start of any line, indented or not', () => {
    expect(neutralize('::error::x\n  ::add-mask::y\nkeep :: this')).to.equal(':\u200b:error::x\n  :\u200b:add-mask::y\nkeep :: this');
  });

  it('leaves ordinary text alone', () => {
    expect(neutralize('hello, world: 1 2 3\n')).to.equal('hello, world: 1 2 3\n');
  });
});
