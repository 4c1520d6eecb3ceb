// The envelope every `--output json` document shares, and the Error document a failed command prints on stderr.
import { z } from 'zod';
import { CLI_API_VERSION } from '../api-version.js';

export { CLI_API_VERSION };

/** One diagnostic as printed: the eight contract fields always present (`null` where they do not apply). */
export const DiagnosticDocument = z.looseObject({
  code: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  message: z.string(),
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  path: z.string().nullable(),
  help: z.string(),
});

/** The success envelope around one command's `data`. */
export function envelopeOf<Kind extends string, Data extends z.ZodType>(kind: Kind, data: Data) {
  return z.looseObject({
    apiVersion: z.literal(CLI_API_VERSION),
    kind: z.literal(kind),
    ok: z.boolean(),
    data,
    diagnostics: z.array(DiagnosticDocument),
  });
}

/** What a failed command prints on stderr: the message, the exit code and the run it concerns, if any. */
export const ErrorDocument = z.looseObject({
  apiVersion: z.literal(CLI_API_VERSION),
  kind: z.literal('Error'),
  ok: z.literal(false),
  error: z.looseObject({
    message: z.string(),
    exitCode: z.number().int(),
    runId: z.string().nullable(),
    traceId: z.string().nullable(),
  }),
  diagnostics: z.array(DiagnosticDocument),
});
