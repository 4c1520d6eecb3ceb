// The documents of the commands that keep the state: artifacts, the database, garbage collection.
import { z } from 'zod';

export const storeDocuments = {
  ArtifactList: z.looseObject({}),
  ArtifactInspection: z.looseObject({}),
  ArtifactVerification: z.looseObject({}),
  ArtifactExport: z.looseObject({}),
  ArtifactGarbageCollection: z.looseObject({}),
  DatabaseStats: z.looseObject({}),
  DatabaseMigration: z.looseObject({}),
  GarbageCollection: z.looseObject({}),
} satisfies Record<string, z.ZodType>;
