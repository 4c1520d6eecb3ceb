// The version of the command line's JSON documents, on its own: the CLI stamps it on every document it prints without
// loading the documents' schemas (sdk/documents), which only some commands need.

/** The envelope's version: the reference implementation's, so its readers read agentctl's documents unchanged. */
export const CLI_API_VERSION = 'agentctl.dev/cli/v1';
