// The documents of the commands that read a workflow file without running it.
import { z } from 'zod';

export const workflowDocuments = {
  CheckResult: z.looseObject({}),
  Plan: z.looseObject({}),
  DoctorResult: z.looseObject({}),
  SourceExplanation: z.looseObject({}),
  ProviderCapabilities: z.looseObject({}),
  AuthStatus: z.looseObject({}),
  WorkflowSchema: z.looseObject({}),
  /** `schema --kind KIND`: the JSON Schema of one of these documents (agentctl's own). */
  DocumentSchema: z.looseObject({}),
  Version: z.looseObject({}),
} satisfies Record<string, z.ZodType>;
