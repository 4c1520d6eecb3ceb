// Tool kinds: what an agent's tool does when the model calls it. The host validates the call against the tool's
// declared input schema, records it as an effect with the tool's declared class, risk and idempotency, applies
// policy and approval, runs the kind, and validates the output against the declared output schema.
import type { EffectAccess, EffectProfile } from './effects.js';
import type { RedactOptions } from './action-kind.js';
import type { FileService } from './files.js';
import type { JsonObject, JsonValue } from './json.js';

/** A `spec.tools` entry as its kind sees it. */
export interface ToolSettings {
  /** The entry's name in `spec.tools`: what the model calls and what `toolsAllow`/`toolsDeny` name. */
  readonly name: string;
  readonly kind: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema: JsonObject;
  readonly timeoutSeconds: number;
  /** The declared `capability`, e.g. `filesystem.read`. */
  readonly capability: string;
  /** The declared effect class, risk and idempotency. */
  readonly profile: EffectProfile;
}

/** What one call of a tool may use. */
export interface ToolContext {
  readonly tool: ToolSettings;
  /** Workspace files, confined like an action's (reads in the workspace root, writes below writable roots). */
  readonly files: FileService;
  /** Aborted on cancellation, at the task deadline or at the tool's `timeoutSeconds`. */
  readonly signal: AbortSignal;
  /** Replaces every secret value known to the run with `[REDACTED]`; `limit` shortens the text after redacting it. */
  redact(text: string, options?: RedactOptions): string;
}

/** A tool kind (`builtin.workspace.read`, ...). Its input has already matched the tool's `inputSchema`. */
export interface ToolKind {
  readonly kind: string;
  readonly description: string;
  /** Whether tools of this kind may declare `secrets` and `network` (a built-in workspace tool may not). */
  readonly usesSecrets?: boolean;
  readonly usesNetwork?: boolean;
  /**
   * Problems of a tool definition of this kind, found at `check` (e.g. an input schema that does not require the
   * `path` the kind reads): one message each, empty when it is usable.
   */
  checkDefinition?(tool: ToolSettings): readonly string[];
  /** What policy must authorize for one call, besides the tool identity (which is the tool's name). */
  access(input: JsonValue, tool: ToolSettings): Omit<EffectAccess, 'tool'>;
  /** Performs the call. Throw an EffectFailure for a failed (or uncertain) call. */
  run(input: JsonValue, context: ToolContext): Promise<JsonValue>;
}
