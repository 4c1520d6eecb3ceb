// The documents of the commands that read or resolve what a run recorded.
import { z } from 'zod';

export const ledgerDocuments = {
  RunInspection: z.looseObject({}),
  RunList: z.looseObject({}),
  EffectList: z.looseObject({}),
  EffectInspection: z.looseObject({}),
  EffectReconciliation: z.looseObject({}),
  ApprovalList: z.looseObject({}),
  ApprovalResolution: z.looseObject({}),
} satisfies Record<string, z.ZodType>;
