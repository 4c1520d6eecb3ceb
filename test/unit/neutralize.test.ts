// Human-mode output of text a child or a task produced: control characters and CI commands are shown, never obeyed.
import { expect } from 'chai';
import { formatDiagnostics, neutralize, palette } from '../../core/cli/output.js';
import { AgentctlError, diagnostic } from '@agentctl/sdk';

describe('neutralize', () => {
  it('escapes terminal control sequences, DEL, C1 controls and bidirectional overrides', () => {
    expect(neutralize('\u001b[31mred\u001b[0m')).to.equal('\\x1b[31mred\\x1b[0m');
    expect(neutralize('bell\u0007 back\u0008 null\u0000 del\u007f')).to.equal('bell\\x07 back\\x08 null\\x00 del\\x7f');
    expect(neutralize('csi\u009b2J osc\u001d')).to.equal('csi\\x9b2J osc\\x1d');
    expect(neutralize('abc\u202edef\u2066')).to.equal('abc\\u202edef\\u2066');
    expect(neutralize('one\u2028two')).to.equal('one\\u2028two');
  });

  it('keeps tabs and newlines, turns CRLF into a newline and shows a lone carriage return', () => {
    expect(neutralize('a\tb\nc')).to.equal('a\tb\nc');
    expect(neutralize('line\r\nnext')).to.equal('line\nnext');
    expect(neutralize('progress 10%\rprogress 99%')).to.equal('progress 10%\\x0dprogress 99%');
  });

  it('escapes CI workflow commands at the start of any line, after blanks', () => {
    expect(neutralize('::error::boom')).to.equal('\\x3a:error::boom');
    expect(neutralize('ok\n  ::add-mask::x\n::set-output name=a::b')).to.equal('ok\n  \\x3a:add-mask::x\n\\x3a:set-output name=a::b');
    expect(neutralize('##[group]title\n##vso[task.setvariable variable=a]b\n##teamcity[message text=x]')).to.equal(
      '\\x23#[group]title\n\\x23#vso[task.setvariable variable=a]b\n\\x23#teamcity[message text=x]',
    );
    expect(neutralize('\t::warning file=a::w')).to.equal('\t\\x3a:warning file=a::w');
  });

  it('leaves ordinary text alone, including :: and ## inside a line and markdown headings', () => {
    const text = 'std::vector and a::b\n## Heading\nC# and ::) in the middle: x ::error::';
    expect(neutralize(text)).to.equal(text);
    expect(neutralize('café ✓ 日本')).to.equal('café ✓ 日本');
  });

  it('is applied to every message and help in human diagnostics, and agentctl keeps its own colors', () => {
    const error = new AgentctlError('AGENTCTL_E_PROCESS_EXIT', 'task t failed: sh exited with status 1: \u001b]0;title\u0007', {
      diagnostics: [diagnostic('AGENTCTL_E_PROCESS_EXIT', { message: 'sh exited with status 1:\n::error::fake annotation', help: '\u001b[2Jcleared', taskId: 't' })],
    });
    const text = formatDiagnostics(error, palette(true));
    expect(text).to.contain('\u001b[31merror\u001b[0m: task t failed: sh exited with status 1: \\x1b]0;title\\x07');
    expect(text).to.contain('    sh exited with status 1:\n\\x3a:error::fake annotation');
    expect(text).to.contain('\\x1b[2Jcleared');
    expect(text.split('\n').filter((line) => /^\s*::/.test(line))).to.deep.equal([]);
    expect(text.replace(/\u001b\[\d+m/g, '')).not.to.match(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});
