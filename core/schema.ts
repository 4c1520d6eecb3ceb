// The published JSON Schema, generated from the zod schemas of the envelope and of every registered action kind.
import { z } from 'zod';
import type { Host } from './host.js';
import { envelopeSchema } from './compiler/envelope.js';
import { sectionShape } from './compiler/sections.js';

export function workflowJsonSchema(host: Host): Record<string, unknown> {
  const kinds = host.actionKinds();
  const actions = kinds.map((kind) => {
    const shape = (kind.actionSchema as z.ZodObject).shape ?? {};
    return z.strictObject({ kind: z.literal(kind.name), ...shape }).describe(kind.description);
  });
  const action = actions.length === 1 ? actions[0]! : z.discriminatedUnion('kind', actions as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]]);
  const schema = z.toJSONSchema(envelopeSchema(action, sectionShape(host)), { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://agentctl.dev/schemas/workflow/v1.json',
    title: 'agentctl workflow',
    description: `Workflow document for agentctl ${host.version}. Action kinds: ${kinds.map((kind) => kind.name).join(', ')}.`,
  };
}
