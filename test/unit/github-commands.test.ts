// GitHub workflow command pieces: the escaping the runner undoes, the file as GitHub names it, the per-step limit, and
// a job summary cut at a whole line.
import { expect } from 'chai';
import { diagnostic } from '@agentctl/sdk';
import { annotationLines, annotationPath, escapeData, escapeProperty } from '../../core/cli/github-annotations.js';
import { fitted, inert } from '../../core/cli/job-summary.js';

describe('GitHub workflow commands', () => {
  it('escapes %, CR and LF in a message, and also : and , in a property; % first, so an escape is never escaped twice', () => {
    expect(escapeData('100% done\r\nnext: a, b')).to.equal('100%25 done%0D%0Anext: a, b');
    expect(escapeProperty('100% done\r\nnext: a, b')).to.equal('100%25 done%0D%0Anext%3A a%2C b');
    expect(escapeData('%0A')).to.equal('%250A');
  });

  it('names a file relative to GITHUB_WORKSPACE inside it, and as given outside it', () => {
    expect(annotationPath('/opt/actions-runner/_work/app/app/flows/a.yaml', { GITHUB_WORKSPACE: '/opt/actions-runner/_work/app/app' })).to.equal('flows/a.yaml');
    expect(annotationPath('/opt/actions-runner/_work/app/app-other/a.yaml', { GITHUB_WORKSPACE: '/opt/actions-runner/_work/app/app' })).to.equal('/opt/actions-runner/_work/app/app-other/a.yaml');
    expect(annotationPath('/elsewhere/a.yaml', {})).to.equal('/elsewhere/a.yaml');
  });

  it('annotates only diagnostics with a file and a line; ten of each severity, then one line counting the rest', () => {
    const at = (severity: 'error' | 'warning' | 'info', line: number) => diagnostic('AGENTCTL_E_SCHEMA', { severity, message: `m${line}`, file: '/w/a.yaml', line, column: 2 });
    const items = [...Array.from({ length: 12 }, (_, index) => at('error', index + 1)), ...Array.from({ length: 11 }, (_, index) => at('warning', index + 100)), at('info', 500), diagnostic('AGENTCTL_E_SCHEMA', { message: 'no file' })];
    const lines = annotationLines(items, { GITHUB_WORKSPACE: '/w' });
    expect(lines.filter((line) => line.startsWith('::error '))).to.have.length(10);
    expect(lines.filter((line) => line.startsWith('::warning '))).to.have.length(10);
    expect(lines.filter((line) => line.startsWith('::notice '))).to.deep.equal(['::notice file=a.yaml,line=500,col=2,title=AGENTCTL_E_SCHEMA::m500']);
    expect(lines.at(-1)).to.equal('3 more diagnostics: see the log');
    expect(annotationLines([diagnostic('AGENTCTL_E_SCHEMA', { message: 'x', file: 'a.yaml' })], {})).to.deep.equal([]);
  });

  it('gives a summary line that starts like a CI command a Markdown escape; the same text elsewhere in a line is left', () => {
    expect(inert('::error::x\n  ::add-mask::y\n##[group]z\nsee ::error:: here\n| a | ::b |')).to.equal('\\::error::x\n  \\::add-mask::y\n\\##[group]z\nsee ::error:: here\n| a | ::b |');
  });

  it('cuts a summary after a whole line, closes an open code block, and gives up when not even the note fits', () => {
    const text = `# Run r\n\n\`\`\`\n${'é'.repeat(50)}\n${'ü'.repeat(50)}\n\`\`\`\n`;
    const whole = fitted(text, 10_000, 'r')!;
    expect(whole).to.equal(text);
    const cut = fitted(text, Buffer.byteLength(text) - 1, 'r')!;
    expect(cut.startsWith(`# Run r\n\n\`\`\`\n`)).to.equal(true);
    expect(cut).to.contain('```\n\n> **Note:**');
    expect(Buffer.byteLength(cut)).to.be.at.most(Buffer.byteLength(text) - 1);
    expect(cut).to.not.contain('ü');
    expect(fitted(text, 20, 'r')).to.equal(null);
  });
});
