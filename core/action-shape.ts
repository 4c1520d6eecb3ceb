// What one action of a kind takes and does: its own input schema and effect profile when the kind lets each action
// declare them (an extension's inputSchema and idempotency), the kind's otherwise.
import type { z } from 'zod';
import type { ActionKind, EffectProfile, SpecSectionValues } from '@agentctl/sdk';

/** `sections` are the plan's plugin-owned spec sections, which a kind's input may depend on (the servers mcp.call names). */
export const inputSchemaOf = (kind: ActionKind, fields: unknown, sections: SpecSectionValues = {}): z.ZodType => kind.inputSchemaFor?.(fields, { sections }) ?? kind.inputSchema;

export const profileOf = (kind: ActionKind, fields: unknown): EffectProfile => kind.profileFor?.(fields) ?? kind.effect;
