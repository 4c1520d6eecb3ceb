// The command line's documents: each `--output json` kind's `data` as a zod schema, the envelope around it, the Error
// document and the `--output jsonl` stream event. `agentctl schema --kind KIND` prints each as JSON Schema. A separate
// entry point from the SDK's index: building these schemas costs start-up time that a plugin never needs to pay.
import { z } from 'zod';
import { envelopeOf, ErrorDocument } from './envelope.js';
import { ledgerDocuments } from './ledger.js';
import { memoryDocuments } from './memory.js';
import { packDocuments } from './packs.js';
import { runDocuments } from './run.js';
import { storeDocuments } from './store.js';
import { StreamEvent } from './stream.js';
import { workflowDocuments } from './workflow.js';

export { CLI_API_VERSION, DiagnosticDocument, envelopeOf, ErrorDocument } from './envelope.js';
export { StreamEvent } from './stream.js';
export { ledgerDocuments, memoryDocuments, packDocuments, runDocuments, storeDocuments, workflowDocuments };

/** Every success kind's `data` schema, by kind. */
export const CLI_DOCUMENTS = { ...workflowDocuments, ...runDocuments, ...ledgerDocuments, ...storeDocuments, ...memoryDocuments, ...packDocuments };

/** The kind of a success document (the `kind` of its envelope). */
export type CliDocumentKind = keyof typeof CLI_DOCUMENTS;

/** The kinds `schema --kind` knows: every success kind, `Error`, and `StreamEvent` (one line of `--output jsonl`). */
export function cliDocumentKinds(): string[] {
  return [...Object.keys(CLI_DOCUMENTS), 'Error', 'StreamEvent'].sort();
}

/** The whole document of a kind (envelope and data), or undefined for a kind agentctl does not print. */
export function cliDocumentSchema(kind: string): z.ZodType | undefined {
  if (kind === 'Error') return ErrorDocument;
  if (kind === 'StreamEvent') return StreamEvent;
  const data = (CLI_DOCUMENTS as Record<string, z.ZodType>)[kind];
  return data ? envelopeOf(kind, data) : undefined;
}

/** A kind's document as JSON Schema 2020-12, as a reader of agentctl's output validates it. */
export function cliDocumentJsonSchema(kind: string): Record<string, unknown> | undefined {
  const schema = cliDocumentSchema(kind);
  if (!schema) return undefined;
  const json = z.toJSONSchema(schema, { io: 'output', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...json, $id: `https://agentctl.dev/schemas/cli/v1/${kind}.json`, title: `agentctl ${kind}` };
}
