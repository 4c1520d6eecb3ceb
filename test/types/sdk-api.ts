// Type-level assertions about the public SDK, read through the package's own entry points as a pack reads them. The
// file is never run: it must compile (`tsc --noEmit`, and test/unit/sdk-api.test.ts compiles it against the built
// declarations). A changed signature makes an `Equal` false, or an `@ts-expect-error` line compile, and fails it.
import type { z } from 'zod';
import {
  defineActionKind,
  defineIsolation,
  definePlugin,
  defineProvider,
  defineSecretResolver,
  defineTool,
  isAgentctlError,
  POLICY_STAGES,
  type ActionKind,
  type AgentctlError,
  type DispatchContext,
  type ErrorCodeDeclaration,
  type FileService,
  type IsolationMode,
  type JsonValue,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type PluginApi,
  type PluginDefinition,
  type PluginExitCode,
  type PolicyStage,
  type ProviderCallContext,
  type RedactOptions,
  type SecretResolver,
  type ToolKind,
} from '@agentctl/sdk';
import { serveExtension } from '@agentctl/sdk/process';
import { ActionKindTester, createTestHost, ProviderTester, runAction, SecretResolverTester, type ActionCase, type ActionResult, type InvalidActionCase } from '@agentctl/cli/testing';

/** True when A and B are the same type (not merely assignable both ways). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only for `true`. */
type Assert<T extends true> = T;

export type Checks = [
  // Plugin identity and registration.
  Assert<Equal<Parameters<typeof definePlugin>, [definition: PluginDefinition]>>,
  Assert<Equal<ReturnType<typeof definePlugin>, PluginDefinition>>,
  Assert<Equal<PluginDefinition['setup'], (api: PluginApi) => void>>,
  Assert<Equal<PluginExitCode, 2 | 3 | 4 | 5 | 6>>,
  Assert<Equal<ErrorCodeDeclaration, { readonly exitCode: PluginExitCode; readonly description: string }>>,
  Assert<Equal<PolicyStage, 'security' | 'default' | 'review'>>,
  Assert<Equal<keyof typeof POLICY_STAGES, PolicyStage>>,
  // What each registration call takes.
  Assert<Equal<Parameters<PluginApi['registerActionKind']>, [kind: ActionKind<any, any>]>>,
  Assert<Equal<Parameters<PluginApi['registerSecretResolver']>, [form: string, resolver: SecretResolver]>>,
  Assert<Equal<Parameters<PluginApi['registerIsolation']>, [mode: IsolationMode]>>,
  Assert<Equal<Parameters<PluginApi['registerProvider']>, [provider: ModelProvider]>>,
  Assert<Equal<Parameters<PluginApi['registerToolKind']>, [tool: ToolKind]>>,
  // The one-contribution helpers return a plugin plus what they contribute.
  Assert<Equal<ReturnType<typeof defineProvider>, PluginDefinition & { readonly provider: ModelProvider }>>,
  Assert<Equal<ReturnType<typeof defineIsolation>, PluginDefinition & { readonly isolation: IsolationMode }>>,
  Assert<Equal<ReturnType<typeof defineTool>, PluginDefinition & { readonly tool: ToolKind }>>,
  Assert<Equal<ReturnType<typeof defineSecretResolver>['secretResolver']['resolve'], SecretResolver>>,
  // A dispatch sees typed, read-only action and input, the host's file service and the redactor.
  Assert<Equal<DispatchContext<{ a: string }, { b: number }>['input'], Readonly<{ b: number }>>>,
  Assert<Equal<DispatchContext['files'], FileService>>,
  Assert<Equal<DispatchContext['redact'], (text: string, options?: RedactOptions) => string>>,
  Assert<Equal<RedactOptions, { readonly truncated?: boolean; readonly limit?: number }>>,
  Assert<Equal<ModelProvider['call'], (request: ModelRequest, context: ProviderCallContext) => Promise<ModelResponse>>>,
  // Errors are recognised by brand.
  Assert<Equal<Parameters<typeof isAgentctlError>, [value: unknown]>>,
  Assert<Equal<ReturnType<typeof isAgentctlError>, boolean>>,
  // The test kit.
  Assert<Equal<Parameters<typeof runAction>, [kind: string, testCase?: ActionCase, plugins?: readonly PluginDefinition[]]>>,
  Assert<Equal<ReturnType<typeof runAction>, Promise<ActionResult>>>,
  Assert<Equal<Parameters<ActionKindTester['run']>[0], string>>,
  Assert<Equal<InvalidActionCase['error'], { readonly code: string; readonly message?: string | RegExp }>>,
  Assert<Equal<ReturnType<SecretResolverTester['resolve']>, Promise<string>>>,
  Assert<Equal<ProviderTester['provider'], ModelProvider>>,
  Assert<Equal<typeof serveExtension extends (...args: any[]) => any ? true : false, true>>,
];

// An action kind's schemas type its dispatch: the input is what the input schema outputs.
export const typed = defineActionKind({
  name: 'types.echo',
  description: 'Returns its input.',
  version: '1.0.0',
  hostRange: '*',
  actionSchema: {} as z.ZodObject<{}>,
  inputSchema: {} as z.ZodObject<{ text: z.ZodString }>,
  effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
  async dispatch(context) {
    const text: string = context.input.text;
    // @ts-expect-error the input is read-only
    context.input.text = 'changed';
    return { text } satisfies JsonValue;
  },
});

export function tapSidesOnly(api: PluginApi): void {
  api.hooks.commit.tap('observer', () => undefined);
  // @ts-expect-error a plugin never calls a hook
  void api.hooks.commit.call;
  // @ts-expect-error a plugin never calls a hook
  void api.hooks.compile.promise;
  // @ts-expect-error policy stages are names, never numbers
  api.hooks.policy.tap({ stage: -100 }, () => undefined);
  // @ts-expect-error a policy tap can only deny or require approval
  api.hooks.policy.tap('loose', () => ({ decision: 'allow' }));
}

export function errorsAreBranded(value: unknown): string | undefined {
  // A guard narrows to the error class, so its code is readable without instanceof.
  return isAgentctlError(value) ? (value satisfies AgentctlError).code : undefined;
}

// @ts-expect-error the test host exposes no hook call side or core internals
void createTestHost().hooks;
