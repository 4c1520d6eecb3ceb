// The one list of the core's stable error codes. docs/errors.md lists the same codes; a test keeps them equal.
// Each code maps to the exit code the CLI uses when that error ends an invocation. Plugins declare their own
// codes at registration (see PluginDefinition.errorCodes); those never start with AGENTCTL_E_.

/** The CLI's exit codes (SPEC §11). */
export const EXIT = Object.freeze({
  ok: 0,
  internal: 1,
  usage: 2,
  policy: 3,
  runFailed: 4,
  persistence: 5,
  remote: 6,
  cancelled: 130,
});

/** One of the CLI's exit codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code and one-line description of an error code. */
export interface CodeInfo {
  readonly exitCode: ExitCode;
  readonly summary: string;
}

const define = <T extends Record<string, CodeInfo>>(codes: T): Readonly<T> => Object.freeze(codes);

/** Every core error code with its exit code and summary. */
export const ERROR_CODES = define({
  // Usage and document validation (exit 2)
  AGENTCTL_E_USAGE: { exitCode: EXIT.usage, summary: 'The command line is invalid.' },
  AGENTCTL_E_FILE_NOT_FOUND: { exitCode: EXIT.usage, summary: 'A named file does not exist or cannot be read.' },
  AGENTCTL_E_DOCUMENT_TOO_LARGE: { exitCode: EXIT.usage, summary: 'A workflow or input document is larger than 1 MiB.' },
  AGENTCTL_E_YAML_SYNTAX: { exitCode: EXIT.usage, summary: 'The document is not valid YAML.' },
  AGENTCTL_E_SCHEMA: { exitCode: EXIT.usage, summary: 'A value does not match the workflow schema.' },
  AGENTCTL_E_UNKNOWN_FIELD: { exitCode: EXIT.usage, summary: 'An object has a field the schema does not define.' },
  AGENTCTL_E_API_VERSION: { exitCode: EXIT.usage, summary: 'The document apiVersion or kind is not supported.' },
  AGENTCTL_E_UNSUPPORTED: { exitCode: EXIT.usage, summary: 'The document uses a feature this version does not support.' },
  AGENTCTL_E_UNKNOWN_ACTION_KIND: { exitCode: EXIT.usage, summary: 'No registered plugin provides this action kind.' },
  AGENTCTL_E_UNKNOWN_ACTION: { exitCode: EXIT.usage, summary: 'A task uses an action that is not declared.' },
  AGENTCTL_E_DUPLICATE_TASK: { exitCode: EXIT.usage, summary: 'Two tasks have the same id.' },
  AGENTCTL_E_UNKNOWN_DEPENDENCY: { exitCode: EXIT.usage, summary: 'A task needs a task that does not exist.' },
  AGENTCTL_E_DEPENDENCY_CYCLE: { exitCode: EXIT.usage, summary: 'Task dependencies form a cycle.' },
  AGENTCTL_E_TEMPLATE_SYNTAX: { exitCode: EXIT.usage, summary: 'A ${{ }} template is not a valid expression.' },
  AGENTCTL_E_TEMPLATE_REFERENCE: { exitCode: EXIT.usage, summary: 'A template refers to a value that is not declared or not reachable.' },
  AGENTCTL_E_TEMPLATE_NOT_ALLOWED: { exitCode: EXIT.usage, summary: 'A template appears where only static values are allowed.' },
  AGENTCTL_E_INPUT_INVALID: { exitCode: EXIT.usage, summary: 'A run input is malformed or not declared.' },
  AGENTCTL_E_SECRET_MISSING: { exitCode: EXIT.usage, summary: 'A secret reference cannot be resolved.' },
  AGENTCTL_E_SECRET_FORM_UNKNOWN: { exitCode: EXIT.usage, summary: 'No secret resolver handles this reference form.' },
  AGENTCTL_E_SECRET_TOO_SHORT: { exitCode: EXIT.usage, summary: 'A secret value is shorter than 4 characters and cannot be redacted safely.' },
  AGENTCTL_E_UNKNOWN_ISOLATION: { exitCode: EXIT.usage, summary: 'No registered plugin provides this isolation mode.' },
  AGENTCTL_E_COMMAND_NOT_FOUND: { exitCode: EXIT.usage, summary: 'A process command does not resolve to an executable file.' },
  AGENTCTL_E_COMPILE_REJECTED: { exitCode: EXIT.usage, summary: 'A compile plugin rejected the workflow.' },
  AGENTCTL_E_RUN_NOT_FOUND: { exitCode: EXIT.usage, summary: 'No run with this id exists in the database.' },
  AGENTCTL_E_RUN_NOT_RESUMABLE: { exitCode: EXIT.usage, summary: 'The run ended succeeded or failed and cannot be resumed.' },
  AGENTCTL_E_APPROVAL_NOT_FOUND: { exitCode: EXIT.usage, summary: 'No approval with this id exists in the database.' },
  AGENTCTL_E_APPROVAL_NOT_PENDING: { exitCode: EXIT.usage, summary: 'The approval was already decided or cancelled; only a pending approval can be resolved.' },
  AGENTCTL_E_EFFECT_NOT_FOUND: { exitCode: EXIT.usage, summary: 'No effect with this id exists in the database.' },
  AGENTCTL_E_RECONCILIATION_REFUSED: { exitCode: EXIT.usage, summary: 'The effect is not in doubt, or the reconciliation contradicts an earlier one.' },

  // Plugin host (exit 2: the configuration of the host is wrong)
  AGENTCTL_E_PLUGIN_INVALID: { exitCode: EXIT.usage, summary: 'A plugin definition is malformed.' },
  AGENTCTL_E_PLUGIN_DUPLICATE: { exitCode: EXIT.usage, summary: 'Two plugins share a name, or two plugins own the same action kind, secret form or isolation mode.' },
  AGENTCTL_E_PLUGIN_NOT_OWNER: { exitCode: EXIT.usage, summary: 'A plugin tapped the dispatch hook of an action kind that another plugin (or no plugin) owns.' },
  AGENTCTL_E_PLUGIN_ERROR_CODE: { exitCode: EXIT.usage, summary: 'A plugin declared an error code that is malformed, not prefixed by its name, or has an invalid exit code.' },
  AGENTCTL_E_PLUGIN_HOST_RANGE: { exitCode: EXIT.usage, summary: 'A plugin does not support this host version.' },
  AGENTCTL_E_PLUGIN_SETUP: { exitCode: EXIT.usage, summary: "A plugin's setup threw while it was being registered; the plugin is not loaded." },
  AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED: { exitCode: EXIT.usage, summary: 'A plugin tried to register after the host was ready.' },
  AGENTCTL_E_PLUGIN_FAILED: { exitCode: EXIT.runFailed, summary: 'A plugin threw an unexpected error in a hook.' },
  AGENTCTL_E_PLUGIN: { exitCode: EXIT.runFailed, summary: 'A plugin raised an error code it did not declare; the diagnostic names the plugin, the hook and the original code.' },

  // Policy and approval (exit 3 when they end an invocation; a denied effect fails its task, exit 4)
  AGENTCTL_E_POLICY_PROCESS_DENIED: { exitCode: EXIT.policy, summary: 'The executable basename is not in processAllowlist.' },
  AGENTCTL_E_POLICY_ENV_DENIED: { exitCode: EXIT.policy, summary: 'An environment name is not in environmentAllowlist.' },
  AGENTCTL_E_POLICY_PATH_ESCAPE: { exitCode: EXIT.policy, summary: 'A path leaves the workspace root or contains "..".' },
  AGENTCTL_E_POLICY_CWD_INVALID: { exitCode: EXIT.policy, summary: 'A process working directory does not exist or is not a folder.' },
  AGENTCTL_E_POLICY_NOT_WRITABLE: { exitCode: EXIT.policy, summary: 'A write target is not below a writable root.' },
  AGENTCTL_E_POLICY_STATE_PATH: { exitCode: EXIT.policy, summary: "A path is agentctl's own state: the database, its -wal/-shm/-journal, or the artifact store." },
  AGENTCTL_E_POLICY_TOOL_DENIED: { exitCode: EXIT.policy, summary: 'The tool identity is denied by toolsAllow/toolsDeny.' },
  AGENTCTL_E_POLICY_NO_VERDICT: { exitCode: EXIT.policy, summary: 'No policy gave a verdict; the effect is denied (fail closed).' },
  AGENTCTL_E_APPROVAL_PENDING: { exitCode: EXIT.policy, summary: 'An effect waits for an operator approval; the run is paused.' },
  AGENTCTL_E_APPROVAL_DENIED: { exitCode: EXIT.policy, summary: 'An effect needed approval and nonInteractive is deny_approval.' },
  AGENTCTL_E_APPROVAL_REQUIRED: { exitCode: EXIT.policy, summary: 'An effect needed approval and nonInteractive is fail.' },
  AGENTCTL_E_EFFECT_UNRECONCILED: { exitCode: EXIT.policy, summary: 'An effect of the run is started or uncertain and has no reconciliation; resume refuses.' },

  // Task and run failures (exit 4)
  AGENTCTL_E_APPROVAL_REJECTED: { exitCode: EXIT.runFailed, summary: 'An operator rejected an effect; its task fails.' },
  AGENTCTL_E_RUN_FAILED: { exitCode: EXIT.runFailed, summary: 'The run ended failed.' },
  AGENTCTL_E_TASK_INPUT_INVALID: { exitCode: EXIT.runFailed, summary: 'A rendered task input does not match its action kind.' },
  AGENTCTL_E_TASK_OUTPUT_INVALID: { exitCode: EXIT.runFailed, summary: 'A task output does not match its outputSchema.' },
  AGENTCTL_E_TEMPLATE_EVALUATION: { exitCode: EXIT.runFailed, summary: 'A template could not be evaluated at run time.' },
  AGENTCTL_E_TASK_TIMEOUT: { exitCode: EXIT.runFailed, summary: 'A task exceeded its timeout.' },
  AGENTCTL_E_DEPENDENCY_FAILED: { exitCode: EXIT.runFailed, summary: 'A task was skipped because a dependency did not succeed.' },
  AGENTCTL_E_ASSERTION_FAILED: { exitCode: EXIT.runFailed, summary: 'A builtin.assert condition was false.' },
  AGENTCTL_E_PROCESS_EXIT: { exitCode: EXIT.runFailed, summary: 'A process exited with a non-zero status.' },
  AGENTCTL_E_PROCESS_OUTPUT_LIMIT: { exitCode: EXIT.runFailed, summary: 'A process wrote more output than its limit.' },
  AGENTCTL_E_PROCESS_TIMEOUT: { exitCode: EXIT.runFailed, summary: 'A process exceeded its timeout; its tree was killed.' },
  AGENTCTL_E_PROCESS_SPAWN: { exitCode: EXIT.runFailed, summary: 'A process could not be started or its pipes failed.' },
  AGENTCTL_E_FILE_TOO_LARGE: { exitCode: EXIT.runFailed, summary: 'A file read by a task is larger than 1 MiB.' },
  AGENTCTL_E_FILE_READ: { exitCode: EXIT.runFailed, summary: 'A file could not be read.' },
  AGENTCTL_E_FILE_WRITE: { exitCode: EXIT.runFailed, summary: 'A file could not be written.' },

  // Persistence (exit 5)
  AGENTCTL_E_DB_OPEN: { exitCode: EXIT.persistence, summary: 'The database cannot be opened, created or read.' },
  AGENTCTL_E_DB_SCHEMA_NEWER: { exitCode: EXIT.persistence, summary: 'The database was created by a newer agentctl.' },
  AGENTCTL_E_DB_WRITE: { exitCode: EXIT.persistence, summary: 'A write to the database failed.' },
  AGENTCTL_E_DB_CORRUPT: { exitCode: EXIT.persistence, summary: 'The database file is damaged, or holds a row agentctl cannot read.' },
  AGENTCTL_E_OUTCOME_NOT_RECORDED: { exitCode: EXIT.persistence, summary: 'An effect was performed but its outcome could not be recorded; the run stops.' },
  AGENTCTL_E_RUN_LEASED: { exitCode: EXIT.persistence, summary: 'Another process holds the lease on this run.' },

  // Cancellation (exit 130)
  AGENTCTL_E_CANCELLED: { exitCode: EXIT.cancelled, summary: 'The run was cancelled by a signal or --timeout-seconds.' },

  // Bugs (exit 1)
  AGENTCTL_E_INTERNAL: { exitCode: EXIT.internal, summary: 'An unexpected internal error; please report it.' },
});

/** A core error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `code` is one of the core's codes. */
export function isCoreErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
