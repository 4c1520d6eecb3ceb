// The documents of the commands that start, continue, derive or stop a run.
import { z } from 'zod';

export const runDocuments = {
  RunOutcome: z.looseObject({}),
  Cancellation: z.looseObject({}),
  RepairPlan: z.looseObject({}),
  RepairOutcome: z.looseObject({}),
  RetryPlan: z.looseObject({}),
  RetryOutcome: z.looseObject({}),
  CompensationPlan: z.looseObject({}),
  CompensationOutcome: z.looseObject({}),
} satisfies Record<string, z.ZodType>;
