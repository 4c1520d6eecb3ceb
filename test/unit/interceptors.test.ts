// The composition of interceptor chains (core/interceptors.ts) and the registration of interceptors and propagators,
// on a real host: order, the one `next`, the contract on what a link returns, refusals, and nothing composed when no
// plugin intercepts.
import { expect } from 'chai';
import { definePlugin, type EffectInterceptorInput, type Interceptor, type JsonValue, type PluginApi, type Propagator } from '@agentctl/sdk';
import { Host } from '../../core/host.js';
import { composeHost } from '../../core/cli/composition.js';
import { codeOf } from '../support/errors.js';

const plugin = (name: string, setup: (api: PluginApi) => void) => definePlugin({ name, version: '1.0.0', hostRange: '*', setup });
const INPUT = { runId: 'run_x', traceId: '0'.repeat(32), taskId: 't', attempt: 1, kind: 'k', signal: new AbortController().signal, effectId: 'eff_x', operation: 'op', profile: { effectClass: 'pure', risk: 'low', idempotency: 'pure' }, input: null } as const;
const keep = (text: string) => text;

/** A host whose plugins each register one effect interceptor. */
function hostWith(...interceptors: [string, Interceptor['effect']][]): Host {
  const host = new Host();
  for (const [name, effect] of interceptors) host.register(plugin(name, (api) => api.registerInterceptor({ name: `${name}-spans`, effect })));
  return host.ready();
}

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('interceptors', () => {
  it('without an interceptor or a propagator nothing is composed: the runner calls perform and dispatch directly', () => {
    const interception = composeHost().ready().interception;
    expect(interception).to.deep.equal({});
  });

  it('run in plugin registration order, the first outermost, around one call of what they wrap', async () => {
    const seen: string[] = [];
    const around = (name: string) => async (input: EffectInterceptorInput, next: () => Promise<JsonValue>) => {
      seen.push(`${name} in ${Object.isFrozen(input)}`);
      const value = await next();
      // A second call runs nothing again: it answers the same value.
      expect(await next()).to.equal(value);
      seen.push(`${name} out`);
      return value;
    };
    const host = hostWith(['first', around('first')], ['second', around('second')]);
    const value = await host.interception.effect!({ ...INPUT }, async () => (seen.push('perform'), 'done'), keep);
    expect(value).to.equal('done');
    expect(seen).to.deep.equal(['first in true', 'second in true', 'perform', 'second out', 'first out']);
  });

  it('a link must return what next returned, and cannot swallow what next threw; it must call next', async () => {
    const other = hostWith(['other', async (_input, next) => (await next(), 'something else')]);
    const returned = await rejection(other.interception.effect!({ ...INPUT }, async () => 'done', keep));
    expect(returned).to.include({ code: 'AGENTCTL_E_PLUGIN_FAILED', message: 'plugin other failed in hook interceptor:effect: interceptor other-spans returned a value other than what next returned' });
    // Performed, then failed by the interceptor: not a definite failure.
    expect(returned.outcome).to.equal(undefined);

    const failure = new Error('perform failed');
    const swallowing = hostWith(['swallow', async (_input, next) => next().catch(() => 'fine')]);
    expect(await rejection(swallowing.interception.effect!({ ...INPUT }, async () => Promise.reject(failure), keep))).to.equal(failure);

    const skipping = hostWith(['skip', async () => 'skipped']);
    const skipped = await rejection(skipping.interception.effect!({ ...INPUT }, async () => 'done', keep));
    expect(skipped).to.include({ code: 'AGENTCTL_E_PLUGIN_FAILED', outcome: 'failed' });
    expect(skipped.message).to.contain('interceptor skip-spans did not call next');
  });

  it('registration refuses an interceptor or propagator without a name or anything to wrap or add, a bad or taken environment name, and any after ready', () => {
    const register = (setup: (api: PluginApi) => void, host = new Host()) => codeOf(() => host.register(plugin('p', setup)));
    expect(register((api) => api.registerInterceptor({ name: '' , effect: async (_input, next) => next() }))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
    expect(register((api) => api.registerInterceptor({ name: 'nothing' }))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
    expect(register((api) => api.registerPropagator({ name: 'nothing' }))).to.equal('AGENTCTL_E_PLUGIN_INVALID');
    const environment = (names: string[]): Propagator => ({ name: 'env', environment: { names, values: () => ({}) } });
    expect(register((api) => api.registerPropagator(environment(['TRACE-PARENT'])))).to.equal('AGENTCTL_E_PLUGIN_INVALID');

    const host = new Host();
    host.register(plugin('first', (api) => api.registerPropagator(environment(['TRACEPARENT']))));
    let message = '';
    try {
      host.register(plugin('second', (api) => api.registerPropagator(environment(['TRACESTATE', 'TRACEPARENT']))));
    } catch (error) {
      message = `${(error as { code: string }).code}: ${(error as Error).message}`;
    }
    expect(message).to.contain('AGENTCTL_E_PLUGIN_DUPLICATE');
    expect(message).to.contain('environment entry TRACEPARENT is propagated by plugin first; plugin second cannot propagate it too');

    let kept: PluginApi | undefined;
    const late = new Host();
    late.register(plugin('late', (api) => (kept = api)));
    late.ready();
    expect(codeOf(() => kept!.registerInterceptor({ name: 'late', dispatch: async (_input, next) => next() }))).to.equal('AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED');
    expect(codeOf(() => kept!.registerPropagator({ name: 'late', headers: () => ({}) }))).to.equal('AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED');
  });

  it('propagation adds only inside a task, never over what is set, and names what it may add', async () => {
    const host = new Host();
    host.register(plugin('trace', (api) => api.registerPropagator({ name: 'w3c', environment: { names: ['TRACEPARENT'], values: (context) => ({ TRACEPARENT: context.traceId }) }, headers: (context) => ({ traceparent: String(context.effectId), Accept: 'x' }) })));
    const propagation = host.ready().interception.propagation!;
    expect(propagation.environmentNames()).to.deep.equal([{ name: 'TRACEPARENT', plugin: 'trace' }]);
    const spec = { isolation: 'process', executable: '/bin/true', args: [], cwd: '/', env: { A: '1' }, timeoutMs: 1000, limits: { stdout: 1, stderr: 1, combined: 1 } };
    const request = { url: 'http://127.0.0.1/', method: 'GET' as const, headers: { accept: 'application/json' }, timeoutMs: 1000, signal: new AbortController().signal };
    expect(propagation.process(spec)).to.equal(spec);
    expect(propagation.request(request)).to.equal(request);
    await host.interception.effect!({ ...INPUT }, async () => {
      expect(propagation.process(spec).env).to.deep.equal({ A: '1', TRACEPARENT: INPUT.traceId });
      expect(propagation.process({ ...spec, env: { TRACEPARENT: 'mine' } }).env).to.deep.equal({ TRACEPARENT: 'mine' });
      expect(propagation.request(request).headers).to.deep.equal({ accept: 'application/json', traceparent: 'eff_x' });
      return null;
    }, keep);
  });
});
