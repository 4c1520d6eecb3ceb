// `plugins list` (builtins and packs with what each contributes) and `plugins order --hook NAME` (a hook's taps in
// the order the hook calls them).
import type { CommandModule } from 'yargs';
import { AgentctlError, POLICY_STAGES } from '@agentctl/sdk';
import type { HookTap } from '../../host.js';
import type { Compose } from '../composition.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';

/** A tap as shown: its stage by name for the policy hook (tapable orders by the number behind it). */
function shown(tap: HookTap) {
  const stage = tap.hook === 'policy' ? (Object.entries(POLICY_STAGES).find(([, value]) => value === tap.stage)?.[0] ?? String(tap.stage)) : String(tap.stage);
  return { hook: tap.hook, plugin: tap.plugin, name: tap.name, stage };
}

const pluginsList = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'list',
  describe: 'List the registered plugins (builtins and packs) and what each contributes',
  handler: handler<GlobalArgs>(async (_argv, output) => {
    const host = compose();
    const taps = host.taps().map(shown);
    const plugins = host.plugins().map((plugin) => {
      // Dispatch and secret taps come with the kinds and forms a plugin owns; the others are listed as its taps.
      const own = (tap: ReturnType<typeof shown>) =>
        tap.plugin === plugin.name && !plugin.actionKinds.some((kind) => tap.hook === `dispatch:${kind}`) && !plugin.secretForms.some((form) => tap.hook === `secret:${form}`);
      return { ...plugin, taps: taps.filter(own).map(({ hook, name, stage }) => ({ hook, name, stage })) };
    });
    emit(output, 'PluginList', { plugins }, () =>
      plugins
        .map((plugin) => {
          const owns = [
            ...plugin.actionKinds.map((kind) => `kind ${kind}`),
            ...plugin.secretForms.map((form) => `secret {${form}: ...}`),
            ...plugin.isolationModes.map((mode) => `isolation ${mode}`),
            ...plugin.providers.map((kind) => `provider ${kind}`),
            ...plugin.toolKinds.map((kind) => `tool ${kind}`),
            ...plugin.specSections.map((key) => `section spec.${key}`),
            ...plugin.taskBodies.map((kind) => `task body ${kind}`),
            ...plugin.planEmitters.map((format) => `emitter ${format}`),
            ...plugin.runReporters.map((format) => `reporter ${format}`),
            ...plugin.memoryStores.map((provider) => `memory store ${provider}`),
            ...(plugin.network ? ['the network client'] : []),
            ...plugin.errorCodes.map((code) => `code ${code}`),
          ].join(', ');
          const tapped = plugin.taps.map((tap) => (tap.hook === 'policy' ? `policy@${tap.stage}` : tap.hook)).join(', ');
          return `${plugin.name}@${plugin.version}  ${plugin.source}  owns ${owns || 'nothing (hooks only)'}${tapped ? `  taps ${tapped}` : ''}`;
        })
        .join('\n'),
    );
    return 0;
  }),
});

interface OrderArgs extends GlobalArgs {
  hook: string;
}

const HOOKS = ['compile', 'policy', 'preflight', 'commit', 'dispatch', 'secret'];

const pluginsOrder = (compose: Compose): CommandModule<GlobalArgs, OrderArgs> => ({
  command: 'order',
  describe: 'Show the taps of a hook in the order the hook calls them',
  builder: (yargs) =>
    yargs.option('hook', { type: 'string', demandOption: true, describe: `${HOOKS.join(', ')}; dispatch:KIND or secret:FORM for one key` }) as never,
  handler: handler<OrderArgs>(async (argv, output) => {
    const hook = argv.hook;
    const family = hook.split(':')[0]!;
    if (!HOOKS.includes(family) || (hook.includes(':') && !['dispatch', 'secret'].includes(family))) {
      throw new AgentctlError('AGENTCTL_E_USAGE', `--hook ${hook} is not a hook`, { help: `name one of ${HOOKS.join(', ')} (dispatch:KIND, secret:FORM for one key)` });
    }
    const taps = compose()
      .taps()
      .map(shown)
      .filter((tap) => tap.hook === hook || (!hook.includes(':') && tap.hook.startsWith(`${hook}:`)));
    emit(output, 'HookOrder', { hook, taps }, () =>
      taps.length === 0 ? `no taps on ${hook}` : taps.map((tap, index) => `${String(index + 1).padStart(3)}. ${tap.plugin}  ${tap.name}  ${tap.hook === 'policy' ? `stage ${tap.stage}` : tap.hook}`).join('\n'),
    );
    return 0;
  }),
});

export const pluginsCommand = (compose: Compose): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'plugins',
  describe: 'Plugins registered in this host: builtins and the packs of the project config',
  builder: (yargs) => yargs.command(pluginsList(compose)).command(pluginsOrder(compose)).demandCommand(1, 'name a plugins subcommand: list, order') as never,
  handler: () => undefined,
});
