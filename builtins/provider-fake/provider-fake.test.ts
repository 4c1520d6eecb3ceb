import { expect } from 'chai';
import { ProviderTester } from '@agentctl/cli/testing';
import type { JsonObject, ModelMessage, ModelRequest, ProviderCallContext, ToolCallBlock } from '@agentctl/sdk';
import plugin, { fakeOptionsSchema } from './plugin.js';

// The plugin registered alone in a real host; its stub network answers nothing, and the fake must never use it.
const tester = new ProviderTester(plugin);
const fakeProvider = tester.provider;

const context = (sequence: number): ProviderCallContext => tester.context({ provider: { name: 'scripted', kind: 'fake' }, effectId: `eff_${sequence}`, sequence, timeoutMs: 1000 });

/** A request after `turns` earlier answers (the fake answers turn N from the N-th assistant message). */
const request = (options: JsonObject, turns: number): ModelRequest =>
  tester.request({
    model: 'scripted',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      ...Array.from({ length: turns }, (): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text: 'earlier' }] })),
    ],
    tools: [{ name: 'echo', description: 'Returns its input.', inputSchema: { type: 'object' } }],
    maxOutputTokens: 100,
    options,
  });

const script = (calls: number): JsonObject => ({
  turns: [...Array.from({ length: calls }, (_, i) => ({ toolCalls: [{ tool: 'echo', input: { n: i + 1 } }] })), { text: 'done' }],
});

describe('fake provider', () => {
  const parse = fakeOptionsSchema.parse;
  let parses = 0;
  beforeEach(() => {
    parses = 0;
    fakeOptionsSchema.parse = ((...args: Parameters<typeof parse>) => {
      parses += 1;
      return parse(...args);
    }) as typeof parse;
  });
  afterEach(() => {
    fakeOptionsSchema.parse = parse;
    expect(tester.network.requests).to.deep.equal([]);
  });

  it('parses the options of an agent once, not at every turn: 50 turns of a 49-call script parse it once', async () => {
    const options = script(49);
    const answers: string[] = [];
    for (let turn = 0; turn < 50; turn += 1) {
      const response = await fakeProvider.call(request(options, turn), context(turn + 1));
      answers.push(response.finishReason);
    }
    expect(parses).to.equal(1);
    expect(answers.filter((reason) => reason === 'tool_calls')).to.have.length(49);
    expect(answers.at(-1)).to.equal('complete');
  });

  it('answers from the options as they are at each call: changed options are parsed again', async () => {
    const options = script(2);
    const first = await fakeProvider.call(request(options, 0), context(1));
    expect((first.content[0] as ToolCallBlock).input).to.deep.equal({ n: 1 });
    (options.turns as JsonObject[])[0] = { text: 'changed' };
    const second = await fakeProvider.call(request(options, 0), context(2));
    expect(second.content).to.deep.equal([{ type: 'text', text: 'changed' }]);
    expect(parses).to.equal(2);
  });

  it('parses deeply frozen options once, whatever other options are parsed between its calls', async () => {
    const deepFreeze = <T>(value: T): T => {
      if (value !== null && typeof value === 'object') for (const inner of Object.values(Object.freeze(value))) deepFreeze(inner);
      return value;
    };
    const frozen = deepFreeze(script(2));
    const other = script(3);
    for (const [options, turn] of [[frozen, 0], [other, 0], [frozen, 1], [other, 1], [frozen, 2]] as const) {
      const response = await fakeProvider.call(request(options, turn), context(turn + 1));
      expect(response.finishReason).to.equal(options === frozen && turn === 2 ? 'complete' : 'tool_calls');
    }
    // Each parsed once: the frozen one is its own key, so it never displaces the last text of the other.
    expect(parses).to.equal(2);
  });

  it('gives every response its own tool input: changing one answer changes no later one', async () => {
    const options = { toolInput: { path: 'note.txt' } };
    const first = await fakeProvider.call(request(options, 0), context(1));
    ((first.content[0] as ToolCallBlock).input as { path: string }).path = 'other.txt';
    const second = await fakeProvider.call(request(options, 0), context(2));
    expect((second.content[0] as ToolCallBlock).input).to.deep.equal({ path: 'note.txt' });
  });

  it('embeds deterministically, offline: the same text and model give the same vector, shared words similar ones, another model another', async () => {
    const embed = (model: string, texts: string[]) => fakeProvider.embed!({ model, texts, dimensions: 256 }, context(1));
    const first = await embed('m', ['Invoices are sent monthly', 'invoices SENT', 'the dog sleeps']);
    expect(first.vectors).to.have.length(3);
    expect(first.vectors.every((vector) => vector.length === 256 && vector.every(Number.isFinite))).to.equal(true);
    expect((await embed('m', ['Invoices are sent monthly'])).vectors[0]).to.deep.equal(first.vectors[0]);
    const dot = (left: readonly number[], right: readonly number[]) => left.reduce((sum, value, index) => sum + value * right[index]!, 0);
    expect(dot(first.vectors[0]!, first.vectors[1]!)).to.be.greaterThan(dot(first.vectors[0]!, first.vectors[2]!));
    expect((await embed('other', ['Invoices are sent monthly'])).vectors[0]).to.not.deep.equal(first.vectors[0]);
    expect(first.usage.inputTokens).to.be.greaterThan(0);
    expect(tester.network.requests).to.have.length(0);
  });
});
