// Types of documents.mjs, for the unit tests that import it.
export declare const CLI_API_VERSION: 'agentctl.dev/cli/v1';
export interface SchemaLike {
  safeParse(value: unknown): { success: boolean; error?: unknown };
}
export declare function parseOneDocument(text: string, options: { kind: string; schemaFor: (kind: string) => SchemaLike | undefined; stream?: string }): any;
export declare function loadSchemas(): Promise<(kind: string) => SchemaLike | undefined>;
