// What one action of a kind takes and does: its own input schema and effect profile when the kind lets each action
// declare them (an extension's inputSchema and idempotency), the kind's otherwise.
import type { z } from 'zod';
import type { ActionKind, EffectProfile } from '../sdk/index.js';

export const inputSchemaOf = (kind: ActionKind, fields: unknown): z.ZodType => kind.inputSchemaFor?.(fields) ?? kind.inputSchema;

export const profileOf = (kind: ActionKind, fields: unknown): EffectProfile => kind.profileFor?.(fields) ?? kind.effect;
