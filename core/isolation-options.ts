// Isolation modes own their options: when registration closes, every process kind's action schema gains the options
// block of each registered mode (`container:` for `isolation: container`), checked by the mode's own schema, allowed
// only when the action selects that mode, and followed by the mode's checks across the action's fields.
import { z } from 'zod';
import { AgentctlError, type ActionKind, type IsolatedAction, type IsolationMode, type IsolationOptionsDeclaration } from '@agentctl/sdk';

type Declared = { readonly mode: string; readonly options: IsolationOptionsDeclaration };

/** A process kind's schema is an object with the process fields spread in (sdk processActionFields). */
function processSchema(schema: unknown): z.ZodObject | undefined {
  const shape = (schema as { shape?: unknown } | null)?.shape;
  if (shape === null || typeof shape !== 'object' || !('command' in shape) || !('isolation' in shape)) return undefined;
  return schema as z.ZodObject;
}

/** The kind as the host holds it once registration closed: a process kind takes the modes' option blocks. */
export function withIsolationOptions(kind: ActionKind<any, any>, modes: readonly IsolationMode[]): ActionKind<any, any> {
  const declared = modes.filter((mode): mode is IsolationMode & Declared => mode.options !== undefined);
  const schema = processSchema(kind.actionSchema);
  if (declared.length === 0 || !schema) return kind;
  const blocks: Record<string, z.ZodType> = {};
  for (const { mode, options } of declared) {
    if (options.key in schema.shape || options.key in blocks) {
      throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `isolation mode ${mode} takes its options in the field ${options.key}, which action kind ${kind.name} or another mode already uses`, {
        help: 'give the mode an options key of its own (usually its name)',
      });
    }
    // Optional here: whether the selected mode needs its block is its schema's to say (checkBlocks).
    blocks[options.key] = options.schema.optional();
  }
  const actionSchema = schema.safeExtend(blocks).superRefine((action, context) => checkBlocks(action as IsolatedAction & Record<string, unknown>, declared, context));
  return { ...kind, actionSchema };
}

/** A block goes with its mode only; the selected mode's schema decides about an absent block; then its own checks. */
function checkBlocks(action: IsolatedAction & Record<string, unknown>, declared: readonly Declared[], context: z.RefinementCtx): void {
  for (const { mode, options } of declared) {
    const block = action[options.key];
    if (mode !== action.isolation) {
      if (block !== undefined) context.addIssue({ code: 'custom', path: [options.key], message: `a ${options.key} block applies only with isolation: ${mode} (this action uses isolation: ${action.isolation})` });
      continue;
    }
    if (block === undefined) {
      const parsed = options.schema.safeParse(undefined);
      if (!parsed.success) for (const issue of parsed.error.issues) context.addIssue({ code: 'custom', path: [options.key, ...issue.path], message: issue.message });
    }
    options.checkAction?.(action, context);
  }
}

/** The selected mode's options: its block parsed again by its schema (defaults applied), or none for a mode without. */
export function optionsOf(mode: IsolationMode, action: IsolatedAction): z.output<IsolationOptionsDeclaration['schema']> {
  if (!mode.options) return undefined;
  const parsed = mode.options.schema.safeParse((action as unknown as Record<string, unknown>)[mode.options.key]);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = [mode.options.key, ...(issue?.path ?? [])].join('.');
  throw new AgentctlError('AGENTCTL_E_SCHEMA', `isolation ${mode.mode} needs a valid ${mode.options.key} block: ${where}: ${issue?.message ?? 'invalid'}`);
}
