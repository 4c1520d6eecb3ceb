// The inputs of builtin.memory.read and builtin.memory.write, and the keys the compiler can read from a raw `with`.
import { z } from 'zod';
import type { MemoryWriteKeys } from '@agentctl/sdk';

const key = z.string().min(1, 'a working-memory key is not empty');

export const memoryActionSchema = z.strictObject({});
export const memoryReadInputSchema = z.strictObject({ key });
/** `value` defaults to null, as in the reference implementation. */
export const memoryWriteInputSchema = z.strictObject({ key, value: z.json().default(null) });

const TEMPLATE = /\$\{\{/;

/** The `key` of a raw `with`: the literal key, `dynamic` when it is a template, nothing when absent or not a string. */
function rawKey(input: unknown): { literal?: string; dynamic: boolean } {
  const value = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as { key?: unknown }).key : undefined;
  if (typeof value !== 'string' || value === '') return { dynamic: false };
  return TEMPLATE.test(value) ? { dynamic: true } : { literal: value, dynamic: false };
}

export function writtenKeys(input: unknown): MemoryWriteKeys {
  const { literal, dynamic } = rawKey(input);
  return { keys: literal === undefined ? [] : [literal], dynamic };
}

export function readKeys(input: unknown): readonly string[] {
  const { literal } = rawKey(input);
  return literal === undefined ? [] : [literal];
}
