import { expect } from 'chai';
import { canonicalJson, type JsonValue } from '@agentctl/sdk';
import { CanonicalMemo } from '../../core/agents/canonical.js';

/** The effect input of turn `turn` of a conversation, shaped like the agent loop's. */
function turnInput(memo: CanonicalMemo, messages: JsonValue[], turn: number): JsonValue {
  const request = memo.seal({ model: 'm', messages: memo.list(messages), tools: memo.own([{ name: 'echo', inputSchema: { type: 'object', required: ['n'] } }]), maxOutputTokens: 64, options: memo.own({ z: 1, a: [3, { y: 'é', b: null }] }) });
  return { turn, agent: 'a', request, attempt: 1, sequence: turn } as JsonValue;
}

describe('agent canonical memo', () => {
  it('gives canonicalJson text for any JSON, remembered or not', () => {
    const memo = new CanonicalMemo();
    const values: JsonValue[] = [null, 1.5, -0, 'a"b\n', [], {}, { b: 1, a: [true, { d: 'x', c: null }] }, { '\u00e9': 1, e: 2, E: 3, '10': 4, '9': 5 }, [[], [{}], 'x']];
    for (const value of values) {
      expect(memo.text(value)).to.equal(canonicalJson(value));
      expect(memo.text(memo.own(value))).to.equal(canonicalJson(value));
      expect(memo.text(memo.own(value))).to.equal(canonicalJson(value));
    }
    // What canonicalJson does with values that are not JSON (an undefined member, a hole) stays exactly the same.
    const odd = { a: undefined, b: [1, , 3], c: new Date(0) } as unknown as JsonValue;
    expect(memo.text(memo.own(odd))).to.equal(canonicalJson(odd));
  });

  it('gives canonicalJson text for a value nested 100,000 levels deep without overflowing the stack', () => {
    let value: JsonValue = { b: 1, a: 'x' };
    for (let depth = 0; depth < 100_000; depth += 1) value = depth % 2 === 0 ? [value] : { k: value };
    const memo = new CanonicalMemo();
    expect(memo.text(value)).to.equal(canonicalJson(value));
    expect(memo.text(value)).to.equal(`${'{"k":['.repeat(50_000)}{"a":"x","b":1}${']}'.repeat(50_000)}`);
  });

  it('gives JSON.stringify text for any value, remembered or not', () => {
    const memo = new CanonicalMemo();
    const values = [null, 1.5, -0, NaN, 'a"b\n', [], {}, { b: 1, a: [true, { d: 'x', c: null }] }, { '\u00e9': 1, e: 2, E: 3, '10': 4, '9': 5 }, [[], [{}], 'x']];
    const odd = [{ a: undefined, b: [1, , 3, undefined, () => 1], c: new Date(0), f: () => 1 }, Object.assign(Object.create(null), { z: 1, y: [2] }), { toJSON: () => 'mine' }, Object.assign([1, 2], { toJSON: () => 'list' })];
    for (const value of [...values, ...odd] as JsonValue[]) {
      expect(memo.json(value)).to.equal(JSON.stringify(value));
      const owned = memo.own(value);
      expect(memo.json(owned)).to.equal(JSON.stringify(owned));
      expect(memo.json(owned)).to.equal(JSON.stringify(owned));
    }
  });

  it('serializes each message of a growing conversation once, with the text canonicalJson gives at every turn', () => {
    const memo = new CanonicalMemo();
    const messages: JsonValue[] = [memo.own({ role: 'user', content: [{ type: 'text', text: 'go' }] })];
    const stringify = JSON.stringify;
    let calls = 0;
    const counted = new Map<number, number>();
    for (let turn = 1; turn <= 40; turn++) {
      const input = turnInput(memo, messages, turn);
      JSON.stringify = ((...args: Parameters<typeof stringify>) => ((calls += 1), stringify(...args))) as typeof stringify;
      let text: string;
      try {
        calls = 0;
        text = memo.text(input);
      } finally {
        JSON.stringify = stringify;
      }
      counted.set(turn, calls);
      expect(text).to.equal(canonicalJson(input));
      expect(memo.text(input)).to.equal(text);
      expect(memo.json(input)).to.equal(JSON.stringify(input));
      messages.push(memo.own({ role: 'assistant', content: [{ type: 'tool_call', id: `call_${turn}`, name: 'echo', input: { n: turn } }] }));
      messages.push(memo.own({ role: 'tool', content: [{ type: 'tool_result', callId: `call_${turn}`, name: 'echo', output: { n: turn } }] }));
    }
    // Turn 40 holds 79 messages, turn 2 three: the work per turn stays that of what is new (two messages), not all.
    expect(counted.get(40)).to.equal(counted.get(2));
  });

  it('makes each list of a growing conversation from the last one, and starts over when the list is not a longer copy', () => {
    const memo = new CanonicalMemo();
    const owned = (n: number) => memo.own({ role: 'tool', content: [{ type: 'tool_result', output: { n } }] }) as JsonValue;
    const messages = [owned(1), owned(2)];
    const first = memo.list(messages);
    expect(Object.isFrozen(first)).to.equal(true);
    expect(memo.text(first as JsonValue)).to.equal(canonicalJson(messages));
    messages.push(owned(3), 'text', 7, null);
    expect(memo.text(memo.list(messages) as JsonValue)).to.equal(canonicalJson(messages));
    // A list that is not the last one plus more: a shorter one, one with an item replaced.
    expect(memo.text(memo.list(messages.slice(1)) as JsonValue)).to.equal(canonicalJson(messages.slice(1)));
    messages[0] = owned(9);
    expect(memo.text(memo.list(messages) as JsonValue)).to.equal(canonicalJson(messages));
    expect(memo.text(memo.list<JsonValue>([]) as JsonValue)).to.equal('[]');
  });

  it('does not remember the text of a list holding a value it does not own', () => {
    const memo = new CanonicalMemo();
    const mine = memo.own({ n: 1 }) as JsonValue;
    const theirs = { n: 2 };
    const list = memo.list([mine, theirs as JsonValue]);
    expect(memo.text(list as JsonValue)).to.equal('[{"n":1},{"n":2}]');
    // Frozen by seal (it was sealable), so nothing can change it afterwards; a list after it is still exact.
    expect(Object.isFrozen(theirs)).to.equal(true);
    const next = memo.list([mine, theirs as JsonValue, memo.own({ n: 3 }) as JsonValue]);
    expect(memo.text(next as JsonValue)).to.equal('[{"n":1},{"n":2},{"n":3}]');
  });

  it('keeps the conversation its own: later changes to what it was given do not reach it, and it cannot be changed', () => {
    const memo = new CanonicalMemo();
    const content = [{ type: 'tool_call', id: 'c1', name: 'echo', input: { n: 1 } }];
    const message = memo.own({ role: 'assistant', content });
    const before = memo.text(message as JsonValue);
    content[0]!.input.n = 2;
    expect(memo.text(message as JsonValue)).to.equal(before);
    expect(canonicalJson(message as JsonValue)).to.equal(before);
    expect(() => ((message.content[0] as { input: { n: number } }).input.n = 3)).to.throw(TypeError);
    expect(Object.isFrozen(message.content)).to.equal(true);
  });

  it('leaves a value it cannot copy as it is, unfrozen, and recomputes what holds it', () => {
    const memo = new CanonicalMemo();
    const odd = { role: 'tool', content: [{ type: 'tool_result', output: { f: () => 1, n: 1 } }] };
    expect(memo.own(odd)).to.equal(odd);
    const request = memo.seal({ messages: [odd], model: 'm' });
    expect(Object.isFrozen(request)).to.equal(false);
    expect(Object.isFrozen(odd)).to.equal(false);
    expect(memo.text(request as unknown as JsonValue)).to.equal(canonicalJson(request as unknown as JsonValue));
    (odd.content[0]!.output as { n: number }).n = 2;
    expect(memo.text(request as unknown as JsonValue)).to.equal(canonicalJson(request as unknown as JsonValue));
  });
});
