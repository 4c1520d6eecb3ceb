// Turns zod issues into positioned diagnostics.
import type { z } from 'zod';
import { diagnostic, type Diagnostic } from '../../sdk/index.js';
import { formatPath, type PathSegment, type SourceDocument } from './source.js';

export function issuesToDiagnostics(issues: readonly z.core.$ZodIssue[], source: SourceDocument, prefix: readonly PathSegment[] = []): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...(issue.path as PathSegment[])];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const keyPath = [...path, key];
        out.push(
          diagnostic('AGENTCTL_E_UNKNOWN_FIELD', {
            message: `unknown field "${key}" in ${formatPath(path) || 'the document'}`,
            file: source.file,
            ...source.locate(keyPath, { key: true }),
            path: formatPath(keyPath),
            help: 'remove the field or check its spelling; see `agentctl schema` for the allowed fields',
          }),
        );
      }
      continue;
    }
    out.push(
      diagnostic(path.length === 1 && (path[0] === 'apiVersion' || path[0] === 'kind') ? 'AGENTCTL_E_API_VERSION' : 'AGENTCTL_E_SCHEMA', {
        message: `${formatPath(path) || 'document'}: ${issue.message}`,
        file: source.file,
        ...source.locate(path),
        path: formatPath(path),
        help: 'see `agentctl schema` for the workflow format',
      }),
    );
  }
  return out;
}
