// The documents of the commands about packs, plugins and the project config.
import { z } from 'zod';

export const packDocuments = {
  PackInspection: z.looseObject({}),
  PackVerification: z.looseObject({}),
  PackLock: z.looseObject({}),
  PackLockUpdate: z.looseObject({}),
  PackLockVerification: z.looseObject({}),
  PackVendor: z.looseObject({}),
  PluginList: z.looseObject({}),
  HookOrder: z.looseObject({}),
  ConfigShow: z.looseObject({}),
} satisfies Record<string, z.ZodType>;
