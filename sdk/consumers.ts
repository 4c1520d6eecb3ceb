// Consumers of the public documents: plan emitters turn a plan into files, run reporters turn a recorded run into
// bytes. Both are keyed by format and receive the same documents `plan --output json` and `inspect --output json`
// print, so anything they write could have been written from those documents outside agentctl.
import type { z } from 'zod';
import type { ledgerDocuments } from './documents/ledger.js';
import type { workflowDocuments } from './documents/workflow.js';

/** The plan document: the `data` of `agentctl plan FILE --output json` (document kind `Plan`). */
export type PlanDocument = z.output<(typeof workflowDocuments)['Plan']>;

/** How a plan splits for scale-out: the plan document's `stages`, present with `plan --stages` or `--shards N`. */
export type PlanStages = NonNullable<PlanDocument['stages']>;

/** The run inspection document: the `data` of `agentctl inspect RUN --output json` (document kind `RunInspection`). */
export type RunInspection = z.output<(typeof ledgerDocuments)['RunInspection']>;

/** One file a plan emitter produces: a relative path under the `--out` folder (forward slashes) and its content. */
export interface EmittedFile {
  /** Relative to `--out`, without `..` segments; the CLI refuses a path that would leave the folder. */
  readonly path: string;
  readonly content: string | Uint8Array;
}

/** What a plan emitter receives. */
export interface PlanEmitterInput<Options = unknown> {
  readonly plan: PlanDocument;
  /** The workflow file as `plan` was given it (relative to the working folder, or absolute). */
  readonly file?: string;
  /** `--emit-option KEY=VALUE` entries, parsed by the emitter's `optionsSchema` (an empty object without one). */
  readonly options: Options;
}

/**
 * A plan emitter, registered with `api.registerPlanEmitter`: `agentctl plan FILE --emit FORMAT --out DIR` compiles
 * the workflow, hands the plan document to `emit`, and writes each returned file under DIR, each atomically.
 */
export interface PlanEmitter<Options = unknown> {
  /** The key `--emit` names: lower case letters, digits and dashes (e.g. `json`, `github-matrix`). */
  readonly format: string;
  readonly description: string;
  /** The zod schema of the emitter's options (`--emit-option KEY=VALUE`, VALUE read as JSON when it parses). */
  readonly optionsSchema?: z.ZodType<Options>;
  emit(input: PlanEmitterInput<Options>): EmittedFile[] | Promise<EmittedFile[]>;
}

/** Parts of the run a reporter may ask for beyond the inspection's records: `audit`, the run's audit events in order. */
export type RunReportPart = 'audit';

/** What a run reporter receives. */
export interface RunReporterInput {
  /** The run as `inspect` prints it; its `audit` is empty unless the reporter declares `needs: ['audit']`. */
  readonly inspection: RunInspection;
}

/**
 * A run reporter, registered with `api.registerRunReporter`: `agentctl report RUN --format FORMAT [--out FILE]`
 * reads the run from the ledger (already redacted: the ledger never holds a secret value) and writes what
 * `report` returns to FILE, atomically, or to standard output.
 */
export interface RunReporter {
  /** The key `--format` names: lower case letters, digits and dashes (e.g. `markdown`, `junit`). */
  readonly format: string;
  readonly description: string;
  /** The media type of what `report` returns, e.g. `text/markdown`. */
  readonly mediaType: string;
  /** Parts of the run to read beyond the records every reporter gets. */
  readonly needs?: readonly RunReportPart[];
  report(input: RunReporterInput): string | Uint8Array | Promise<string | Uint8Array>;
}
