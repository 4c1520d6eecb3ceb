// Keeps the documentation honest: docs/errors.md lists exactly the codes of core/error-codes.ts, and every
// documented command and workflow runs as written against the real CLI.
//
// Conventions in README.md, docs/*.md and builtins/*/README.md:
// - In a ```sh block, each line starting with `agentctl ` or `npx agentctl ` (optionally after NAME=value
//   environment assignments) is run, in document order, in one temporary folder per markdown file that holds
//   a copy of examples/ and of the declarative packs under packs/. It must exit 0, or the code given by a trailing comment `# exit N`. Other lines
//   (`npm ci`, `npm test`, ...) are not run. `RUN_ID` stands for the run id printed by an earlier command.
// - A fenced block whose info string has `file=NAME` is written to NAME in that folder before the commands run.
// - A ```yaml block that starts with `apiVersion:` and declares `kind: Workflow` must pass `agentctl check`, or exit with `check=N` from
//   its info string.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ERROR_CODES } from '@agentctl/sdk';
import { baseEnv, ROOT, runCli, type CliResult } from '../support/cli.js';
import { shellWords } from '../support/shell-words.js';

interface Block {
  readonly language: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly body: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

interface Command {
  readonly source: string;
  readonly line: number;
  readonly env: Record<string, string>;
  readonly args: string[];
  readonly exitCode: number;
}

const COMMAND = /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:npx\s+)?agentctl(?:\s|$)/;
// Run ids are `run_`, a base-36 time and 12 hex digits; `run_doesnotexist` in an error message is not one.
const RUN_ID = /\brun_[0-9a-z]+[0-9a-f]{12}\b/;
// Likewise `APPROVAL_ID` and `EFFECT_ID` stand for the last approval and effect id printed (the last one in `effects list`).
const PRINTED = { APPROVAL_ID: /\bapr_[0-9a-f]{24}\b/g, EFFECT_ID: /\beff_[0-9a-f]{40}\b/g } as const;

function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[index]!);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !/^```\s*$/.test(lines[index]!); index += 1) body.push(lines[index]!);
    const attributes = Object.fromEntries(
      open[2]!
        .split(/\s+/)
        .filter((word) => word.includes('='))
        .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
    );
    blocks.push({ language: open[1]!, attributes, body: body.join('\n') + '\n', line: start + 1 });
  }
  return blocks;
}


function commandsOf(block: Block): Command[] {
  const joined = block.body.replace(/\\\n/g, ' ').split('\n');
  const commands: Command[] = [];
  joined.forEach((raw, offset) => {
    const source = raw.trim();
    if (!COMMAND.test(source)) return;
    const { words, comment } = shellWords(source);
    const env: Record<string, string> = {};
    while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) {
      const word = words.shift()!;
      env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
    }
    if (words[0] === 'npx') words.shift();
    words.shift(); // agentctl
    const exit = /\bexit\s+(\d+)\b/.exec(comment);
    commands.push({ source, line: block.line + 1 + offset, env, args: words, exitCode: exit ? Number(exit[1]) : 0 });
  });
  return commands;
}

const isWorkflow = (block: Block) => /^ya?ml$/.test(block.language) && /^(\s*(#.*)?\n)*apiVersion:/.test(block.body) && /^kind: Workflow\s*$/m.test(block.body);

function markdownFiles(): string[] {
  const files = [join(ROOT, 'README.md')];
  const docs = join(ROOT, 'docs');
  // The tutorial builds its own project step by step: test/docs/plugin-authoring.test.ts runs it in order.
  if (existsSync(docs)) files.push(...readdirSync(docs).filter((name) => name.endsWith('.md') && name !== 'plugin-authoring.md').sort().map((name) => join(docs, name)));
  const builtins = join(ROOT, 'builtins');
  for (const name of readdirSync(builtins).sort()) {
    const readme = join(builtins, name, 'README.md');
    if (existsSync(readme)) files.push(readme);
  }
  return files.filter((file) => existsSync(file));
}

function describeResult(command: string, result: CliResult): string {
  return `${command}\n--- exit ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

describe('docs/errors.md', () => {
  const text = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
  const rows = [...text.matchAll(/^\|\s*`(AGENTCTL_E_[A-Z0-9_]+)`\s*\|\s*(\d+)\s*\|/gm)].map((match) => ({ code: match[1]!, exitCode: Number(match[2]) }));

  it('has one table row for every code of core/error-codes.ts, and no other', () => {
    const mentioned = new Set([...text.matchAll(/`(AGENTCTL_E_[A-Z0-9_]+)`/g)].map((match) => match[1]!));
    expect([...mentioned].sort()).to.deep.equal(Object.keys(ERROR_CODES).sort());
    expect(rows.map((row) => row.code).sort()).to.deep.equal(Object.keys(ERROR_CODES).sort());
  });

  it('gives each code the exit code it maps to', () => {
    const table = Object.fromEntries(rows.map((row) => [row.code, row.exitCode]));
    const expected = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, info]) => [code, info.exitCode]));
    expect(table).to.deep.equal(expected);
  });

  it('names no code that no test names: each code is reached by at least one test', () => {
    const tests = [
      ...readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' }).map((entry) => join(ROOT, 'test', entry)),
      ...readdirSync(join(ROOT, 'builtins'), { recursive: true, encoding: 'utf8' }).map((entry) => join(ROOT, 'builtins', entry)),
      ...readdirSync(join(ROOT, 'packs'), { recursive: true, encoding: 'utf8' }).filter((entry) => !entry.includes('node_modules')).map((entry) => join(ROOT, 'packs', entry)),
    ].filter((file) => /\.test\.(ts|mjs)$/.test(file) && file !== fileURLToPath(import.meta.url));
    const named = new Set(tests.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/AGENTCTL_E_[A-Z0-9_]+/g)].map((match) => match[0])));
    expect(Object.keys(ERROR_CODES).filter((code) => !named.has(code)), 'codes no test names').to.deep.equal([]);
  });

  it('is the only list: every code named anywhere in the docs exists', () => {
    for (const file of markdownFiles()) {
      for (const match of readFileSync(file, 'utf8').matchAll(/AGENTCTL_E_[A-Z0-9_]+/g)) {
        expect(ERROR_CODES, `${relative(ROOT, file)} names ${match[0]}`).to.have.property(match[0]);
      }
    }
  });
});

for (const file of markdownFiles()) {
  const name = relative(ROOT, file);
  const blocks = fencedBlocks(readFileSync(file, 'utf8'));
  const steps = blocks.flatMap((block) => [
    ...(isWorkflow(block) ? [{ kind: 'check' as const, block }] : []),
    ...(block.language === 'sh' ? commandsOf(block).map((command) => ({ kind: 'command' as const, command })) : []),
  ]);
  if (steps.length === 0) continue;

  describe(`${name}: documented commands and workflows`, () => {
    let folder = '';
    let lastRunId: string | undefined;
    const lastPrinted: Partial<Record<keyof typeof PRINTED, string>> = {};

    before(() => {
      folder = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-docs-')));
      cpSync(join(ROOT, 'examples'), join(folder, 'examples'), { recursive: true });
      // Declarative packs ship with their example workflows; code packs (with package.json) are not needed here.
      for (const pack of readdirSync(join(ROOT, 'packs'))) {
        if (!existsSync(join(ROOT, 'packs', pack, 'package.json'))) cpSync(join(ROOT, 'packs', pack), join(folder, 'packs', pack), { recursive: true });
      }
      const written = new Set<string>();
      for (const block of blocks) {
        const target = block.attributes.file;
        if (!target) continue;
        expect(written.has(target), `${name}:${block.line} writes ${target} twice`).to.equal(false);
        written.add(target);
        mkdirSync(dirname(join(folder, target)), { recursive: true });
        writeFileSync(join(folder, target), block.body);
      }
    });
    after(() => rmSync(folder, { recursive: true, force: true }));

    steps.forEach((step, index) => {
      if (step.kind === 'check') {
        const { block } = step;
        const expected = Number(block.attributes.check ?? 0);
        it(`line ${block.line}: agentctl check ${block.attributes.file ?? 'of the workflow'} exits ${expected}`, () => {
          const target = block.attributes.file ?? `doc-workflow-${index}.yaml`;
          if (!block.attributes.file) writeFileSync(join(folder, target), block.body);
          const result = runCli(['check', target, '--output', 'json'], { cwd: folder });
          expect(result.status, describeResult(`agentctl check ${target}`, result)).to.equal(expected);
        });
        return;
      }
      const { command } = step;
      it(`line ${command.line}: ${command.source}`, () => {
        const args = command.args.map((arg) => {
          if (arg in PRINTED) {
            expect(lastPrinted[arg as keyof typeof PRINTED], `${name}:${command.line} uses ${arg} before any command printed one`).to.be.a('string');
            return lastPrinted[arg as keyof typeof PRINTED]!;
          }
          if (arg !== 'RUN_ID') return arg;
          expect(lastRunId, `${name}:${command.line} uses RUN_ID before any command printed a run id`).to.be.a('string');
          return lastRunId!;
        });
        const result = runCli(args, { cwd: folder, env: baseEnv(command.env) });
        const shown = describeResult(command.source, result);
        expect(result.status, shown).to.equal(command.exitCode);
        if (args.includes('--output') && args[args.indexOf('--output') + 1] === 'json') {
          const lines = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
          expect(lines, `exactly one JSON document\n${shown}`).to.have.length(1);
          expect(JSON.parse(lines[0]!).apiVersion).to.equal('agentctl.dev/cli/v1');
        }
        const printed = RUN_ID.exec(result.stdout) ?? RUN_ID.exec(result.stderr);
        if (printed) lastRunId = printed[0];
        for (const [key, pattern] of Object.entries(PRINTED)) {
          const found = `${result.stdout}${result.stderr}`.match(pattern);
          if (found) lastPrinted[key as keyof typeof PRINTED] = found.at(-1)!;
        }
      });
    });
  });
}
