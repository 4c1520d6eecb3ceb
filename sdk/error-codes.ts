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

/** The exit code, one-line description and default help of an error code. */
export interface CodeInfo {
  readonly exitCode: ExitCode;
  readonly summary: string;
  /** What to do next: the help a diagnostic of this code gets when its raiser gave none. */
  readonly help: string;
}

const define = <T extends Record<string, CodeInfo>>(codes: T): Readonly<T> => Object.freeze(codes);

/** Every core error code with its exit code and summary. */
export const ERROR_CODES = define({
  // Usage and document validation (exit 2)
  AGENTCTL_E_USAGE: { exitCode: EXIT.usage, summary: 'The command line is invalid.', help: 'run `agentctl --help` or `agentctl COMMAND --help` for the commands and options' },
  AGENTCTL_E_FILE_NOT_FOUND: { exitCode: EXIT.usage, summary: 'A named file does not exist or cannot be read.', help: 'check the path: it must name an existing, readable regular file' },
  AGENTCTL_E_DOCUMENT_TOO_LARGE: { exitCode: EXIT.usage, summary: 'A workflow or input document is larger than 1 MiB.', help: 'keep the document under 1 MiB (4 MiB once YAML aliases are expanded); move bulk data into files that tasks read' },
  AGENTCTL_E_YAML_SYNTAX: { exitCode: EXIT.usage, summary: 'The document is not valid YAML.', help: 'fix the YAML at the position shown; a workflow is one YAML document' },
  AGENTCTL_E_YAML_VALUE: { exitCode: EXIT.usage, summary: 'A YAML value has no JSON form: a !!binary, !!set, !!omap or !!timestamp value, or a merge key << where a value is expected.', help: 'write plain data (strings, numbers, booleans, null, lists, maps) without such tags' },
  AGENTCTL_E_SCHEMA: { exitCode: EXIT.usage, summary: 'A value does not match the workflow schema.', help: 'fix the value at the path shown; `agentctl schema` prints the workflow format' },
  AGENTCTL_E_UNKNOWN_FIELD: { exitCode: EXIT.usage, summary: 'An object has a field the schema does not define.', help: 'remove the field or fix its spelling; `agentctl schema` lists the allowed fields' },
  AGENTCTL_E_API_VERSION: { exitCode: EXIT.usage, summary: 'The document apiVersion or kind is not supported.', help: 'use apiVersion: agentctl.dev/v1 (or agentctl.dev/v1alpha1) and kind: Workflow' },
  AGENTCTL_E_UNSUPPORTED: { exitCode: EXIT.usage, summary: 'The document uses a feature this version does not support.', help: 'remove the feature; docs/workflow-format.md lists what this version supports' },
  AGENTCTL_E_UNKNOWN_ACTION_KIND: { exitCode: EXIT.usage, summary: 'No registered plugin provides this action kind.', help: 'use a kind that `agentctl plugins list` shows, or register the plugin that provides it' },
  AGENTCTL_E_UNKNOWN_ACTION: { exitCode: EXIT.usage, summary: 'A task uses an action that is not declared.', help: 'declare the action in spec.actions, or fix the name after "action:"' },
  AGENTCTL_E_DUPLICATE_TASK: { exitCode: EXIT.usage, summary: 'Two tasks have the same id.', help: 'give each task a unique id' },
  AGENTCTL_E_UNKNOWN_DEPENDENCY: { exitCode: EXIT.usage, summary: 'A task needs a task that does not exist.', help: 'list only ids of tasks declared in spec.tasks in needs' },
  AGENTCTL_E_MEMORY_KEY_UNKNOWN: { exitCode: EXIT.usage, summary: 'A working-memory read names a key that nothing provides before it.', help: 'declare the key in spec.memory.working, or add the task that writes it to needs (directly or through another task)' },
  AGENTCTL_E_MEMORY_WRITES_INVALID: { exitCode: EXIT.usage, summary: "A task's working-memory write set is missing or does not match what it writes.", help: 'a task whose memory key is a template lists every key it may write in memoryWrites; a literal key must be in the list; only tasks that write working memory take memoryWrites' },
  AGENTCTL_E_MEMORY_WRITE_CONFLICT: { exitCode: EXIT.usage, summary: 'Two tasks that may run at once write the same working-memory key.', help: 'order the tasks with needs, or give them disjoint keys (or set spec.runtime.maxConcurrency to 1)' },
  AGENTCTL_E_DEPENDENCY_CYCLE: { exitCode: EXIT.usage, summary: 'Task dependencies form a cycle.', help: 'remove one of the needs entries of the cycle shown' },
  AGENTCTL_E_EXPANSION_INVALID: { exitCode: EXIT.usage, summary: 'A task combines foreach, matrix, loop and route, combines loop with when, or declares a var its expansion binds.', help: 'give a task at most one of foreach, matrix, loop and route, and rename vars that shadow a binding' },
  AGENTCTL_E_EXPANSION_LIMIT: { exitCode: EXIT.usage, summary: 'A foreach or matrix has more children than its maxItems allows.', help: 'raise maxItems (at most 256) or shorten the list' },
  AGENTCTL_E_ROUTER_INVALID: { exitCode: EXIT.usage, summary: 'A router is malformed: no route, a destination that is unknown, listed twice or not depending on the router, or two equal cases.', help: 'list each destination once, make it need the router, and give each case a distinct value' },
  AGENTCTL_E_SUBWORKFLOW_INVALID: { exitCode: EXIT.usage, summary: 'Sub-workflows invoke each other in a cycle.', help: 'a sub-workflow cannot invoke itself, directly or through another' },
  AGENTCTL_E_SUBWORKFLOW_DEPTH: { exitCode: EXIT.usage, summary: 'Sub-workflow invocations nest more than 8 deep.', help: 'invoke sub-workflows at most 8 levels deep: inline a level into the definition that invokes it' },
  AGENTCTL_E_PLAN_TOO_LARGE: { exitCode: EXIT.usage, summary: 'The workflow compiles to more than 10000 tasks (expansion children, sub-workflow tasks and control tasks included).', help: 'shorten foreach lists and matrix axes, or invoke sub-workflows fewer times' },
  AGENTCTL_E_PACK_MANIFEST_MISSING: { exitCode: EXIT.usage, summary: "A declarative pack's manifest does not exist, is not a regular file, or resolves outside the workflow's folder.", help: 'put the pack below the workflow folder and name it with a relative path in source: {path}' },
  AGENTCTL_E_PACK_MANIFEST_INVALID: { exitCode: EXIT.usage, summary: 'A declarative pack manifest is not valid YAML, is larger than 1 MiB, or does not match agentctl.dev/pack/v1alpha1.', help: 'fix the manifest at the path shown; docs/packs.md lists its fields' },
  AGENTCTL_E_PACK_VERSION: { exitCode: EXIT.usage, summary: "A pack's agentctl range does not include the reference format version this release implements.", help: 'use a version of the pack made for this format version (`agentctl version` shows it)' },
  AGENTCTL_E_PACK_RESOLUTION: { exitCode: EXIT.usage, summary: 'Declarative packs cannot be resolved: a dependency cycle, conflicting requirements, an unmet version, a manifest of another name, or an item name that collides.', help: 'make every requirement of a pack name the same source and compatible versions' },
  AGENTCTL_E_PACK_INTEGRITY: { exitCode: EXIT.usage, summary: "A pack's bytes do not have the SHA-256 digest its reference pins.", help: 'review the change to the pack, then update the integrity' },
  AGENTCTL_E_PACK_LOCK_MISSING: { exitCode: EXIT.usage, summary: 'A pack lock is required (--locked, or source-based pack references) and there is none.', help: 'run `agentctl packs lock FILE` and commit agentctl.pack.lock' },
  AGENTCTL_E_PACK_LOCK_MISMATCH: { exitCode: EXIT.usage, summary: 'The packs differ from agentctl.pack.lock (a digest, version, source or dependency drifted), or the lock is malformed.', help: 'review the change, then run `agentctl packs update FILE` and commit the lock' },
  AGENTCTL_E_PACK_UNTRUSTED: { exitCode: EXIT.usage, summary: 'spec.packTrust refuses an unsigned pack, or an unsigned pack declares process execution without allowUnsignedProcess.', help: 'review the pack, then set spec.packTrust.unsigned (and allowUnsignedProcess) explicitly' },
  AGENTCTL_E_TEMPLATE_SYNTAX: { exitCode: EXIT.usage, summary: 'A ${{ }} template is not a valid expression.', help: 'write templates as ${{ [not] PATH [OP LITERAL] }} with PATH rooted at inputs., vars. or tasks.ID.output.' },
  AGENTCTL_E_TEMPLATE_REFERENCE: { exitCode: EXIT.usage, summary: 'A template refers to a value that is not declared or not reachable.', help: 'declare the input or var, or add the task to needs; task references read tasks.ID.output...' },
  AGENTCTL_E_TEMPLATE_NOT_ALLOWED: { exitCode: EXIT.usage, summary: 'A template appears where only static values are allowed.', help: 'use templates only in a task\'s with and when and in spec.outputs; pass run-time values through the task\'s with' },
  AGENTCTL_E_INPUT_INVALID: { exitCode: EXIT.usage, summary: 'A run input is malformed or not declared.', help: 'pass inputs declared in spec.inputs as --input KEY=VALUE, --inputs JSON or --inputs-file PATH' },
  AGENTCTL_E_VARS_FILE_PATH: { exitCode: EXIT.usage, summary: 'A variable file path is refused: empty, a template, a ".." segment, or outside its folder (a symlink included).', help: 'name a literal path inside the workflow\'s folder (for --vars-file: inside the workspace)' },
  AGENTCTL_E_VARS_FILE_UNREADABLE: { exitCode: EXIT.usage, summary: 'A variable file cannot be read: missing, a folder or special file, or not valid UTF-8.', help: 'name an existing regular UTF-8 text file' },
  AGENTCTL_E_VARS_FILE_TOO_LARGE: { exitCode: EXIT.usage, summary: 'A variable file is over 1 MiB, or the variable files are more than 256 or 16 MiB in total.', help: 'keep each variable file within 1 MiB and all of them within 256 files and 16 MiB' },
  AGENTCTL_E_VARS_FILE_INVALID: { exitCode: EXIT.usage, summary: 'A variable file is not a YAML or JSON object of variables: bad syntax, a duplicate key, another top level, an include key, a bad name or value.', help: 'write one object of variable names to JSON values' },
  AGENTCTL_E_VAR_INVALID: { exitCode: EXIT.usage, summary: 'A --var override is not KEY=JSON with KEY a valid variable name.', help: 'pass --var KEY=JSON, e.g. --var replicas=5 or --var \'environment="staging"\'' },
  AGENTCTL_E_VARS_RESERVED: { exitCode: EXIT.usage, summary: 'A variable uses a name the engine binds (loopIndex, loopPrevious, foreachIndex, matrix, matrixIndex).', help: 'rename the variable' },
  AGENTCTL_E_SECRET_MISSING: { exitCode: EXIT.runFailed, summary: 'A secret reference cannot be resolved.', help: 'provide the secret (for {env: NAME}: set NAME in agentctl\'s environment) before the run' },
  AGENTCTL_E_SECRET_FORM_UNKNOWN: { exitCode: EXIT.usage, summary: 'No secret resolver handles this reference form.', help: 'use a secret reference form a registered plugin provides, such as {env: NAME}' },
  AGENTCTL_E_SECRET_TOO_SHORT: { exitCode: EXIT.usage, summary: 'A secret value is shorter than 4 characters and cannot be redacted safely.', help: 'use a secret of at least 4 characters; a shorter value cannot be told apart from ordinary text' },
  AGENTCTL_E_SECRET_REFERENCE_INVALID: { exitCode: EXIT.usage, summary: 'A {file: ...} or {process: ...} secret reference does not have the shape its form requires.', help: 'write {file: PATH} or {process: {command, args, timeoutSeconds, outputLimitBytes}}; see docs/secrets.md' },
  AGENTCTL_E_SECRET_FILE_PARENT_SEGMENT: { exitCode: EXIT.usage, summary: 'A {file: PATH} secret path has a ".." component.', help: 'name the file without "..", below a policy.secretFileRoots entry' },
  AGENTCTL_E_SECRET_FILE_NO_ROOTS: { exitCode: EXIT.usage, summary: 'A {file: PATH} secret is used and policy.secretFileRoots is empty.', help: 'list the folder that holds the secret file in spec.policy.secretFileRoots' },
  AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS: { exitCode: EXIT.usage, summary: 'A {file: PATH} secret is not below any policy.secretFileRoots entry once symlinks are resolved.', help: 'move the file below a secretFileRoots folder, or add its folder to spec.policy.secretFileRoots' },
  AGENTCTL_E_SECRET_FILE_NOT_REGULAR: { exitCode: EXIT.usage, summary: 'A {file: PATH} secret is a folder, FIFO, socket or device, not a regular file.', help: 'point the reference at a regular file holding only the secret' },
  AGENTCTL_E_SECRET_FILE_UNREADABLE: { exitCode: EXIT.usage, summary: 'A {file: PATH} secret exists but cannot be opened or read (permissions).', help: 'let the account that runs agentctl read the file' },
  AGENTCTL_E_SECRET_FILE_TOO_LARGE: { exitCode: EXIT.usage, summary: 'A {file: PATH} secret is larger than 64 KiB.', help: 'a secret file holds one value of at most 65536 bytes' },
  AGENTCTL_E_SECRET_FILE_ENCODING: { exitCode: EXIT.usage, summary: 'A {file: PATH} secret is not valid UTF-8.', help: 'store the secret as UTF-8 text (base64-encode binary material)' },
  AGENTCTL_E_SECRET_PROCESS_NOT_ALLOWED: { exitCode: EXIT.usage, summary: 'A {process: ...} secret helper\'s basename is not in policy.secretProcessAllowlist.', help: 'add the helper\'s basename to spec.policy.secretProcessAllowlist after reviewing it' },
  AGENTCTL_E_SECRET_PROCESS_NOT_FOUND: { exitCode: EXIT.usage, summary: 'A {process: ...} secret helper does not resolve to an executable file.', help: 'use an absolute path, or a name found on agentctl\'s PATH' },
  AGENTCTL_E_SECRET_PROCESS_TIMEOUT: { exitCode: EXIT.usage, summary: 'A {process: ...} secret helper did not exit within timeoutSeconds; its process group was killed.', help: 'make the helper answer without waiting for input, or raise timeoutSeconds (at most 60)' },
  AGENTCTL_E_SECRET_PROCESS_FAILED: { exitCode: EXIT.usage, summary: 'A {process: ...} secret helper could not start, exited with a non-zero status or was killed by a signal.', help: 'run the helper by hand with an empty environment to see why it fails' },
  AGENTCTL_E_SECRET_PROCESS_OUTPUT_TOO_LARGE: { exitCode: EXIT.usage, summary: 'A {process: ...} secret helper wrote more than outputLimitBytes to stdout.', help: 'make the helper print only the secret, or raise outputLimitBytes (at most 65536)' },
  AGENTCTL_E_SECRET_PROCESS_ENCODING: { exitCode: EXIT.usage, summary: 'A {process: ...} secret helper\'s output is not valid UTF-8.', help: 'make the helper print the secret as UTF-8 text' },
  AGENTCTL_E_UNKNOWN_ISOLATION: { exitCode: EXIT.usage, summary: 'No registered plugin provides this isolation mode.', help: 'use an isolation mode a registered plugin provides (`agentctl plugins list`), such as process' },
  AGENTCTL_E_COMMAND_NOT_FOUND: { exitCode: EXIT.usage, summary: 'A process command does not resolve to an executable file.', help: 'use an absolute path, or a command installed in /usr/local/bin, /usr/bin or /bin' },
  AGENTCTL_E_MOUNT_UNSUPPORTED: { exitCode: EXIT.usage, summary: 'The isolation mode cannot honour a mount the process asks for.', help: 'run the action under an isolation mode that can honour the mount (`agentctl plan` shows its mounts), or change the mount' },
  AGENTCTL_E_COMPILE_REJECTED: { exitCode: EXIT.usage, summary: 'A compile plugin rejected the workflow.', help: 'fix what the compile plugin named, or remove the plugin from the configuration' },
  AGENTCTL_E_RUN_NOT_FOUND: { exitCode: EXIT.usage, summary: 'No run with this id exists in the database.', help: 'check the run id and --db; `agentctl runs list` shows the runs in a database' },
  AGENTCTL_E_RUN_NOT_RESUMABLE: { exitCode: EXIT.usage, summary: 'The run ended succeeded or failed and cannot be resumed.', help: 'replay, retry, repair or fork a finished run; only a paused, interrupted or cancelled run resumes' },
  AGENTCTL_E_APPROVAL_NOT_FOUND: { exitCode: EXIT.usage, summary: 'No approval with this id exists in the database.', help: "check the id; `agentctl approvals list RUN` shows a run's approvals" },
  AGENTCTL_E_APPROVAL_NOT_PENDING: { exitCode: EXIT.usage, summary: 'The approval was already decided or cancelled; only a pending approval can be resolved.', help: 'only a pending approval can be decided; `agentctl approvals list RUN` shows its state' },
  AGENTCTL_E_EFFECT_NOT_FOUND: { exitCode: EXIT.usage, summary: 'No effect with this id exists in the database.', help: "check the id; `agentctl effects list RUN` shows a run's effects" },
  AGENTCTL_E_BUDGET_STATIC: { exitCode: EXIT.usage, summary: 'A count known before the run (such as the number of tasks) is over its spec.runtime.budgets limit.', help: 'raise the budget at the path shown, or remove work from the workflow' },
  AGENTCTL_E_BUDGET_PRICING_MISSING: { exitCode: EXIT.usage, summary: 'spec.runtime.budgets.maxCostMicrousd is set without a spec.runtime.pricing table.', help: 'add spec.runtime.pricing (version and per provider/model rates), or remove maxCostMicrousd' },
  AGENTCTL_E_AGENT_INVALID: { exitCode: EXIT.usage, summary: 'An agent, provider or tool definition is inconsistent: an unknown provider or tool, a provider kind without a capability the agent needs, or a tool contract that is not strict.', help: 'fix the definition at the path shown; `agentctl plugins list` shows the provider and tool kinds' },
  AGENTCTL_E_COMPENSATION_INVALID: { exitCode: EXIT.usage, summary: 'A task\'s compensate cannot be compiled: it names an action without effects, or sits on a router or sub-workflow invocation.', help: 'compensate names an effectful action (action:NAME) and belongs on a task that performs effects' },
  AGENTCTL_E_COMPENSATION_NOT_DECLARED: { exitCode: EXIT.usage, summary: 'compensate --task names a task of the source run that declares no compensate.', help: 'name a task with a compensate declaration; `agentctl compensate RUN --plan` lists them' },
  AGENTCTL_E_UNKNOWN_TASK: { exitCode: EXIT.usage, summary: 'A task named on the command line (retry or repair --from, compensate --task) is in neither the workflow nor the source run.', help: 'name a task id of the workflow; `agentctl inspect RUN` lists the tasks of a run' },
  AGENTCTL_E_RETRY_WORKFLOW_CHANGED: { exitCode: EXIT.usage, summary: 'retry needs the workflow the source run ran, byte for byte; this one differs.', help: 'use `agentctl repair FILE RUN --from TASK` for a corrected workflow, or retry with the original file' },
  AGENTCTL_E_REPAIR_NAME_MISMATCH: { exitCode: EXIT.usage, summary: 'repair needs a workflow with the same metadata.name as the source run.', help: 'repair a run with a corrected version of its own workflow; a different workflow is a new run' },
  AGENTCTL_E_EFFECT_NOT_CONTINUABLE: { exitCode: EXIT.usage, summary: 'The effect has no remote work to observe: it is not in doubt, it is reconciled, its run is still driven, or its request recorded no remote id (an ambiguous submission).', help: 'find out what happened remotely, then record it with `agentctl effects reconcile`' },
  AGENTCTL_E_RECONCILIATION_REFUSED: { exitCode: EXIT.usage, summary: 'The effect is not in doubt, or the reconciliation contradicts an earlier one.', help: 'reconcile only an effect in doubt (started or uncertain), consistently with its earlier reconciliations' },

  // Plugin host (exit 2: the configuration of the host is wrong)
  AGENTCTL_E_PLUGIN_INVALID: { exitCode: EXIT.usage, summary: 'A plugin definition is malformed.', help: 'build the plugin with definePlugin or defineActionKind: name, version, hostRange and setup' },
  AGENTCTL_E_PLUGIN_DUPLICATE: { exitCode: EXIT.usage, summary: 'Two plugins share a name, or two plugins own the same action kind, secret form, isolation mode or task body.', help: 'register each plugin once, and let one plugin own each action kind, secret form and isolation mode' },
  AGENTCTL_E_PLUGIN_NOT_OWNER: { exitCode: EXIT.usage, summary: 'A plugin tapped the dispatch hook of, or registered a task body for, an action kind that another plugin (or no plugin) owns.', help: 'a plugin dispatches only the kinds it registers; use the policy hook to restrict another kind' },
  AGENTCTL_E_PLUGIN_ERROR_CODE: { exitCode: EXIT.usage, summary: 'A plugin declared an error code that is malformed, not prefixed by its name, or has an invalid exit code.', help: 'declare each plugin code as PREFIX_E_NAME: { exitCode, description } with exit code 2 to 6' },
  AGENTCTL_E_PLUGIN_HOST_RANGE: { exitCode: EXIT.usage, summary: 'A plugin does not support this host version.', help: 'use a plugin version whose hostRange includes this agentctl version' },
  AGENTCTL_E_PLUGIN_SETUP: { exitCode: EXIT.usage, summary: "A plugin's setup threw while it was being registered; the plugin is not loaded.", help: 'fix or remove the plugin named in the diagnostic; its setup must not throw' },
  AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED: { exitCode: EXIT.usage, summary: 'A plugin tried to register after the host was ready.', help: 'register hooks, kinds and modes inside setup(), not later' },
  AGENTCTL_E_PLUGIN_FAILED: { exitCode: EXIT.runFailed, summary: 'A plugin threw an unexpected error in a hook.', help: 'report the failure to the plugin\'s authors; the diagnostic names the plugin and hook' },
  AGENTCTL_E_PLUGIN: { exitCode: EXIT.runFailed, summary: 'A plugin raised an error code it did not declare; the diagnostic names the plugin, the hook and the original code.', help: 'the plugin must declare the code in its errorCodes; report this to the plugin\'s authors' },

  // Project config and the code packs it lists (exit 2: refused before any run or database row exists)
  AGENTCTL_E_CONFIG_INVALID: { exitCode: EXIT.usage, summary: 'The project config file cannot be read, is not valid JSON, YAML or JavaScript, or does not match the config schema.', help: 'fix the config file at the path shown; docs/config.md lists its fields' },
  AGENTCTL_E_CONFIG_TYPESCRIPT: { exitCode: EXIT.usage, summary: 'A TypeScript config file (agentctl.config.ts) is used and the typescript package cannot be found from its folder.', help: 'install typescript in the project (npm install --save-dev typescript), or write the config as agentctl.config.mjs' },
  AGENTCTL_E_CONFIG_UNSAFE_FOLDER: { exitCode: EXIT.usage, summary: 'The config search found a config file in a folder other users can write to (group- or world-writable, and not a sticky folder of yours); it was not loaded.', help: 'name the file with --config if you trust it, use --no-config, or run from a folder of your own' },
  AGENTCTL_E_CONFIG_UNTRUSTED_OWNER: { exitCode: EXIT.usage, summary: 'The config search found a config file that belongs to neither the current user nor root; it was not loaded.', help: 'name the file with --config if you trust it, or use --no-config' },
  AGENTCTL_E_RUN_PACK_CHANGED: { exitCode: EXIT.usage, summary: 'resume, retry, repair or fork would load a code pack that differs from the one the run recorded (changed files, another version, added or gone); nothing was loaded or written.', help: 'restore the pack the run used, or pass --allow-pack-change to continue with the packs as they are now' },
  AGENTCTL_E_PACK_NOT_FOUND: { exitCode: EXIT.usage, summary: 'A pack listed in the config is not installed (npm name) or does not exist (path), or has no entry module.', help: 'install the package in the project (npm install NAME), or fix the path; a path is relative to the config file' },
  AGENTCTL_E_PACK_ENTRY_OUTSIDE: { exitCode: EXIT.usage, summary: "A pack's entry module (package.json `exports` or `main`) resolves outside the pack's folder, where the lock cannot pin it.", help: "move the module into the pack's folder and point `exports` (or `main`) at it there" },
  AGENTCTL_E_PACK_IMPORT: { exitCode: EXIT.usage, summary: "A pack's module threw while it was imported (a syntax error, a missing dependency, a throw at load).", help: 'fix the pack, or remove it from the config; the message holds what the import threw' },
  AGENTCTL_E_PACK_INVALID: { exitCode: EXIT.usage, summary: 'A pack does not export a plugin definition (default export or named `plugin`), or its name, version, hostRange or setup is malformed.', help: 'export the plugin made with definePlugin as the default export (or as `plugin`)' },
  AGENTCTL_E_PACK_HOST_RANGE: { exitCode: EXIT.usage, summary: "A pack's hostRange does not include this agentctl version.", help: 'install a version of the pack that supports this agentctl, or an agentctl its hostRange includes' },
  AGENTCTL_E_PACK_DUPLICATE: { exitCode: EXIT.usage, summary: 'A pack has the name of a builtin plugin or of another pack in the config.', help: 'list each pack once; a pack cannot replace a builtin' },
  AGENTCTL_E_PACK_CONFLICT: { exitCode: EXIT.usage, summary: 'A pack registers an action kind, provider, secret form, isolation mode, tool kind or network client that a builtin or another pack owns.', help: 'remove one of the two packs from the config; one plugin owns each key' },
  AGENTCTL_E_PACK_NAMESPACE: { exitCode: EXIT.usage, summary: "A pack registers an action kind that is not named after the pack (PACKNAME.something).", help: "name the pack's action kinds PACKNAME.NAME, PACKNAME being the plugin's name (or that name without its npm scope and agentctl-pack- prefix)" },
  AGENTCTL_E_PACK_SETUP: { exitCode: EXIT.usage, summary: "A pack's setup threw while it was being registered; nothing ran.", help: 'fix or remove the pack named in the diagnostic; its setup must only register' },
  AGENTCTL_E_PACK_OPTIONS: { exitCode: EXIT.usage, summary: "A pack's options in the config do not match the pack's optionsSchema, or options are given to a pack that takes none.", help: "fix the options at the path shown; the pack's documentation lists them" },

  // Policy and approval (exit 3 when they end an invocation; a denied effect fails its task, exit 4)
  AGENTCTL_E_POLICY_PROCESS_DENIED: { exitCode: EXIT.policy, summary: 'The executable basename is not in processAllowlist.', help: 'add the executable\'s basename to spec.policy.processAllowlist if it may run' },
  AGENTCTL_E_POLICY_ENV_DENIED: { exitCode: EXIT.policy, summary: 'An environment name is not in environmentAllowlist.', help: 'list each env name the action sets in spec.policy.environmentAllowlist' },
  AGENTCTL_E_POLICY_PATH_ESCAPE: { exitCode: EXIT.policy, summary: 'A path leaves the workspace root or contains "..".', help: 'use a path inside the workspace root without ".." components' },
  AGENTCTL_E_POLICY_CWD_INVALID: { exitCode: EXIT.policy, summary: 'A process working directory does not exist or is not a folder.', help: 'create the folder, or set cwd to an existing folder inside the workspace' },
  AGENTCTL_E_POLICY_NOT_WRITABLE: { exitCode: EXIT.policy, summary: 'A write target is not below a writable root.', help: 'write below a folder listed in spec.policy.writableRoots, or add one' },
  AGENTCTL_E_POLICY_STATE_PATH: { exitCode: EXIT.policy, summary: "A path is agentctl's own state: the database, its -wal/-shm/-journal, or the artifact store.", help: "write and read task files elsewhere: agentctl's database and artifact store are never a task's" },
  AGENTCTL_E_POLICY_TOOL_DENIED: { exitCode: EXIT.policy, summary: 'The tool identity is denied by toolsAllow/toolsDeny.', help: 'adjust spec.policy.toolsAllow and toolsDeny if the tool may be used' },
  AGENTCTL_E_POLICY_NO_VERDICT: { exitCode: EXIT.policy, summary: 'No policy gave a verdict; the effect is denied (fail closed).', help: 'report this to the authors of the policy plugins; the effect was denied to fail closed' },
  AGENTCTL_E_NETWORK_DENIED: { exitCode: EXIT.policy, summary: 'A URL is refused by the network policy: scheme, port, host, userinfo, or an address that is private, loopback or otherwise not public.', help: 'add the host to spec.policy.networkAllowlist and its scheme and port to spec.policy.network; set allowPrivate only for an intended local peer' },
  AGENTCTL_E_APPROVAL_PENDING: { exitCode: EXIT.policy, summary: 'An effect waits for an operator approval; the run is paused.', help: 'an operator must decide the approval; `agentctl inspect RUN` shows it' },
  AGENTCTL_E_APPROVAL_DENIED: { exitCode: EXIT.policy, summary: 'An effect needed approval and nonInteractive is deny_approval.', help: 'run at a terminal to approve, or change spec.policy.approval or nonInteractive' },
  AGENTCTL_E_APPROVAL_REQUIRED: { exitCode: EXIT.policy, summary: 'An effect needed approval and nonInteractive is fail.', help: 'run at a terminal to approve, or change spec.policy.approval or nonInteractive' },
  AGENTCTL_E_RUN_NOT_TERMINAL: { exitCode: EXIT.policy, summary: 'The run is paused or running; replay, retry, repair and compensate need a succeeded, failed or cancelled run.', help: 'resume a paused or interrupted run first (or fork it), then replay, retry or repair a run that ended' },
  AGENTCTL_E_COMPENSATION_BLOCKED: { exitCode: EXIT.policy, summary: 'A compensation plan is blocked: an effect of a task to compensate may or may not have happened; nothing was written.', help: 'reconcile each effect named with `agentctl effects reconcile`, or leave its task out with --task' },
  AGENTCTL_E_COMPENSATION_CLAIMED: { exitCode: EXIT.policy, summary: 'Every effect left to compensate is claimed by another compensation run (one waiting for approval, running, or done): nothing was written.', help: 'continue that run (agentctl approvals list RUN, agentctl resume RUN) or wait for it to end; a claim is released when its run ends without having undone the effect' },
  AGENTCTL_E_REPAIR_BLOCKED: { exitCode: EXIT.policy, summary: 'A retry or repair plan is blocked: a task cannot be reused or run again safely; nothing was written.', help: 'each diagnostic names a block (e.g. resolved_input_digest_mismatch, unreconciled_effect); `--plan` shows the whole plan' },
  AGENTCTL_E_EFFECT_UNRECONCILED: { exitCode: EXIT.policy, summary: 'An effect of the run is started or uncertain and has no reconciliation; resume refuses.', help: 'check whether each named effect happened, record it with `agentctl effects reconcile`, then resume' },

  // Task and run failures (exit 4)
  AGENTCTL_E_APPROVAL_REJECTED: { exitCode: EXIT.runFailed, summary: 'An operator rejected an effect; its task fails.', help: 'change the workflow or ask the approver, then run it again' },
  AGENTCTL_E_BUDGET_EXCEEDED: { exitCode: EXIT.runFailed, summary: 'A run budget would be exceeded: the effect, task or ingestion was not started and the run fails.', help: 'raise the limit named in the diagnostic (spec.runtime.budgets); `agentctl inspect RUN` shows usage and reservations' },
  AGENTCTL_E_RUN_FAILED: { exitCode: EXIT.runFailed, summary: 'The run ended failed.', help: 'see the diagnostics of the failed task; `agentctl inspect RUN` shows the whole run' },
  AGENTCTL_E_MEMORY_WRITE_UNDECLARED: { exitCode: EXIT.runFailed, summary: "A task wrote a working-memory key outside its compiled memoryWrites.", help: "list every key the task may write in its memoryWrites (`agentctl plan` shows each task's set)" },
  AGENTCTL_E_MEMORY_KEY_MISSING: { exitCode: EXIT.runFailed, summary: 'A task read a working-memory key its snapshot does not hold.', help: 'write the key in a task this one needs, or declare it in spec.memory.working' },
  AGENTCTL_E_MEMORY_ENTRY_NOT_FOUND: { exitCode: EXIT.runFailed, summary: 'A builtin.long_term_memory.promote task names, in from, a long-term entry its namespace does not hold (or holds expired).', help: 'write the entry first (builtin.long_term_memory.write or `agentctl memory put`), or promote a builtin.long_term_memory.read output with value, which is null for a missing entry' },
  AGENTCTL_E_MEMORY_VALUE_TOO_LARGE: { exitCode: EXIT.runFailed, summary: 'A working-memory value is larger than 1 MiB as JSON.', help: 'keep working-memory values small; put bulk data in a file under a writable root and keep its path in memory' },
  AGENTCTL_E_TASK_INPUT_INVALID: { exitCode: EXIT.runFailed, summary: 'A rendered task input does not match its action kind.', help: 'make the task\'s with render to the input fields of its action kind (`agentctl schema`)' },
  AGENTCTL_E_TASK_OUTPUT_INVALID: { exitCode: EXIT.runFailed, summary: 'A task output does not match its outputSchema.', help: 'make the task\'s outputSchema match what the task returns, or fix the task' },
  AGENTCTL_E_TEMPLATE_EVALUATION: { exitCode: EXIT.runFailed, summary: 'A template could not be evaluated at run time.', help: 'make sure the path exists in the value it reads at run time, and the types fit the operator' },
  AGENTCTL_E_TASK_TIMEOUT: { exitCode: EXIT.runFailed, summary: 'A task exceeded its timeout.', help: 'raise the task\'s timeoutSeconds, or make the task faster' },
  AGENTCTL_E_DEPENDENCY_FAILED: { exitCode: EXIT.runFailed, summary: 'A task was skipped because a dependency did not succeed.', help: 'fix the failed dependency; a task runs only when every task in its needs succeeded' },
  AGENTCTL_E_ASSERTION_FAILED: { exitCode: EXIT.runFailed, summary: 'A builtin.assert condition was false.', help: 'the condition of the builtin.assert task was false: fix the data it checks, or the condition' },
  AGENTCTL_E_PROCESS_EXIT: { exitCode: EXIT.runFailed, summary: 'A process exited with a non-zero status.', help: 'read the process\'s stderr in the message or with `agentctl inspect RUN`' },
  AGENTCTL_E_PROCESS_OUTPUT_LIMIT: { exitCode: EXIT.runFailed, summary: 'A process wrote more output than its limit.', help: 'raise the action\'s stdoutLimitBytes, stderrLimitBytes or combinedOutputLimitBytes (at most 16 MiB), or make the command quieter' },
  AGENTCTL_E_PROCESS_TIMEOUT: { exitCode: EXIT.runFailed, summary: 'A process exceeded its timeout; its tree was killed.', help: 'raise the action\'s timeoutSeconds; the effect is uncertain until an operator reconciles it' },
  AGENTCTL_E_PROCESS_SPAWN: { exitCode: EXIT.runFailed, summary: 'A process could not be started or its pipes failed.', help: 'check that the executable can run; the effect is uncertain until an operator reconciles it' },
  AGENTCTL_E_PROCESS_RESOURCE_LIMIT: { exitCode: EXIT.runFailed, summary: "A process was killed by its isolation mode's resource control, e.g. a container's memory limit.", help: "raise the container's memoryLimitBytes (at most 16 GiB), or make the command use less" },
  AGENTCTL_E_PROCESS_CLEANUP: { exitCode: EXIT.runFailed, summary: 'What ran a process (e.g. its container) could not be removed afterwards; the effect is uncertain.', help: 'remove the leftover named in the message (e.g. `docker rm -f NAME`), then reconcile the effect with `agentctl effects reconcile`' },
  AGENTCTL_E_EXTENSION_HANDSHAKE: { exitCode: EXIT.runFailed, summary: "An extension's handshake failed or did not match the action's declaration; the invocation never started.", help: "make the extension's --agentctl-handshake answer match the action's protocolVersion, inputSchema, outputSchema and capabilities exactly" },
  AGENTCTL_E_EXTENSION_RESPONSE: { exitCode: EXIT.runFailed, summary: "An extension's invocation answered with something other than one well-formed response for this effect; the effect is uncertain.", help: 'fix the extension to print one JSON object {protocolVersion, effectId, output} echoing its request; then reconcile the effect' },
  AGENTCTL_E_EXTENSION_OUTPUT_INVALID: { exitCode: EXIT.runFailed, summary: "An extension's output does not match the action's outputSchema; the effect is uncertain.", help: "make the extension's output match the action's outputSchema; then reconcile the effect" },
  AGENTCTL_E_AGENT_TURN_LIMIT: { exitCode: EXIT.runFailed, summary: 'An agent used all of its maxTurns without a final answer.', help: "raise the agent's maxTurns (at most 64), or make its instructions converge" },
  AGENTCTL_E_AGENT_TOOL_CALL_LIMIT: { exitCode: EXIT.runFailed, summary: "An agent's model asked for more tool calls than its maxToolCalls (maximum tool-call count exceeded).", help: "raise the agent's maxToolCalls (at most 256), or narrow its instructions" },
  AGENTCTL_E_AGENT_OUTPUT_INVALID: { exitCode: EXIT.runFailed, summary: "An agent's final answer is not JSON matching its structuredOutput, or the model stopped without one (a refusal, or maxOutputTokens reached).", help: "check the recorded response with `agentctl inspect RUN`; raise maxOutputTokens or adjust structuredOutput" },
  AGENTCTL_E_TOOL_CALL_INVALID: { exitCode: EXIT.runFailed, summary: "The model called a tool the agent does not have, or with input that does not match the tool's inputSchema; nothing was run.", help: "the recorded response shows the call; tighten the tool's description or inputSchema, or the agent's instructions" },
  AGENTCTL_E_TOOL_OUTPUT_INVALID: { exitCode: EXIT.runFailed, summary: "A tool's output does not match its outputSchema; it was not sent to the model.", help: "make the tool's outputSchema describe what the tool returns" },
  AGENTCTL_E_LOOP_LIMIT: { exitCode: EXIT.runFailed, summary: "A loop's while condition was still true after maxIterations iterations.", help: 'raise loop.maxIterations (at most 64), or make the body reach the condition that ends the loop' },
  AGENTCTL_E_SUBWORKFLOW_INPUT_INVALID: { exitCode: EXIT.runFailed, summary: "A sub-workflow invocation's input does not match the definition's inputSchema.", help: "pass with values that match the sub-workflow's inputSchema" },
  AGENTCTL_E_SUBWORKFLOW_OUTPUT_INVALID: { exitCode: EXIT.runFailed, summary: "A sub-workflow's output map does not match its outputSchema.", help: "make the definition's outputs produce what its outputSchema describes" },
  AGENTCTL_E_FILE_TOO_LARGE: { exitCode: EXIT.runFailed, summary: 'A file read by a task is larger than 1 MiB.', help: 'read files of at most 1 MiB' },
  AGENTCTL_E_FILE_ENCODING: { exitCode: EXIT.runFailed, summary: 'A file read as text is not valid UTF-8; it is refused, never decoded lossily.', help: 'store the file as UTF-8 text, or read binary data another way (a process action that encodes it, e.g. base64)' },
  AGENTCTL_E_FILE_READ: { exitCode: EXIT.runFailed, summary: 'A file could not be read.', help: 'check that the path names a readable regular file inside the workspace' },
  AGENTCTL_E_FILE_WRITE: { exitCode: EXIT.runFailed, summary: 'A file could not be written.', help: 'check that the folder is writable and the target is not a folder or special file' },

  // Model providers and the network (exit 6: a remote service failed or could not be reached)
  AGENTCTL_E_PROVIDER_UNAVAILABLE: { exitCode: EXIT.remote, summary: 'A model provider answered with a retryable error (429 or 5xx) and the agent\'s retry budget is spent.', help: "retry later, or raise the agent's retry.maxAttempts" },
  AGENTCTL_E_PROVIDER_REJECTED: { exitCode: EXIT.remote, summary: 'A model provider refused the request (a 4xx other than 429: bad request, authentication, unknown model).', help: 'check the model name, the credential and the request the effect recorded (`agentctl inspect RUN`)' },
  AGENTCTL_E_PROVIDER_UNCERTAIN: { exitCode: EXIT.runFailed, summary: 'A model request was sent but no answer arrived (timeout, lost connection); it is not sent again and the effect is uncertain.', help: 'reconcile the effect with `agentctl effects reconcile`, then resume; raise the agent\'s timeoutSeconds if the model is slow' },
  AGENTCTL_E_PROVIDER_SMOKE_ABSENT: { exitCode: EXIT.remote, summary: "`providers smoke-openai --live`: agentctl has no live provider smoke request; nothing is sent.", help: 'run a workflow with an openai agent against a test key; `agentctl providers inspect FILE` checks the credential without a request' },
  AGENTCTL_E_PROVIDER_RESPONSE_INVALID: { exitCode: EXIT.remote, summary: "A model provider's answer could not be read (not the documented format, or too large).", help: 'check the provider endpoint; the effect records the status and what could be read' },
  AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING: { exitCode: EXIT.remote, summary: 'A model provider needs a credential and none is set; nothing was created.', help: "set the provider's credential (its `credential` reference, or the kind's default variable such as OPENAI_API_KEY)" },
  AGENTCTL_E_PROVIDER_UNKNOWN: { exitCode: EXIT.remote, summary: 'No registered plugin provides this model provider kind.', help: 'use a provider kind `agentctl plugins list` shows, or install the pack that provides it' },
  AGENTCTL_E_NETWORK_DNS: { exitCode: EXIT.remote, summary: 'A host name could not be resolved within connectTimeoutSeconds.', help: 'check the name and the DNS of this machine' },
  AGENTCTL_E_NETWORK_CONNECT: { exitCode: EXIT.remote, summary: 'A connection could not be set up (refused, unreachable, TLS handshake or certificate); nothing was sent.', help: 'check that the service is up; for a private CA, add it with spec.policy.network.customCa' },
  AGENTCTL_E_NETWORK_TIMEOUT: { exitCode: EXIT.remote, summary: 'An HTTP exchange did not complete in time.', help: "raise the timeout of the caller (e.g. the agent's timeoutSeconds)" },
  AGENTCTL_E_NETWORK_FAILED: { exitCode: EXIT.remote, summary: 'An HTTP exchange broke off after the request was sent.', help: 'the server may have acted on the request; inspect and reconcile the effect' },
  AGENTCTL_E_NETWORK_REDIRECT: { exitCode: EXIT.remote, summary: 'The server answered with a redirect; redirects are never followed.', help: 'use the final URL directly (and allow its host)' },
  AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE: { exitCode: EXIT.remote, summary: 'A response body is larger than its limit (the policy maxResponseBytes or the caller\'s own).', help: 'raise spec.policy.network.maxResponseBytes if the larger answer is expected' },
  AGENTCTL_E_NETWORK_CA_INVALID: { exitCode: EXIT.usage, summary: 'The customCa bundle is empty, unparsable, or holds something other than certificates (a private key, another PEM block).', help: 'give a PEM file of CERTIFICATE blocks only' },
  AGENTCTL_E_NETWORK_UNAVAILABLE: { exitCode: EXIT.usage, summary: 'The workflow needs outbound HTTP and no plugin provides the network client.', help: 'register the network policy plugin (builtin.network) or a pack that provides one' },

  // MCP servers (exit 6: the server refused or could not be read)
  AGENTCTL_E_MCP_VERSION: { exitCode: EXIT.remote, summary: 'An MCP server answered initialize with another protocol revision than the one configured; the tool was not called.', help: "set the server's protocolVersion in spec.mcpServers to a revision it speaks" },
  AGENTCTL_E_MCP_RPC_ERROR: { exitCode: EXIT.remote, summary: 'An MCP server answered with a JSON-RPC error (an unknown tool, invalid arguments); the effect is failed.', help: "check the tool name and its arguments against the server's tools/list" },
  AGENTCTL_E_MCP_TOOL_ERROR: { exitCode: EXIT.remote, summary: 'An MCP tool ran and reported an error (isError: true); the effect is failed and records the result.', help: 'read the recorded result (`agentctl inspect RUN`); fix the arguments or the remote side, then run again' },
  AGENTCTL_E_MCP_SESSION_EXPIRED: { exitCode: EXIT.remote, summary: 'An MCP server answered 404 to a request of its session: the session ended and is not reopened automatically.', help: 'check the server; run or resume again for a new session' },
  AGENTCTL_E_MCP_RESPONSE_INVALID: { exitCode: EXIT.remote, summary: 'An MCP server answered with a non-2xx status, or with a body holding no JSON-RPC response to the request, or JSON nested more than 64 levels.', help: 'check that the URL is the server\'s Streamable HTTP endpoint; an unreadable answer to tools/call leaves the effect uncertain' },
  AGENTCTL_E_MCP_UNCERTAIN: { exitCode: EXIT.remote, summary: 'A tools/call request was sent but no complete answer arrived (timeout, lost connection); the tool may have run, so it is not called again and the effect is uncertain.', help: "reconcile the effect with `agentctl effects reconcile`, then resume; raise the server's timeoutSeconds if the tool is slow" },
  // A2A peers (exit 6: the peer refused or could not be read; exit 4: the delegated work failed or is in doubt)
  AGENTCTL_E_A2A_CARD_INVALID: { exitCode: EXIT.remote, summary: "A peer's Agent Card could not be read: a non-2xx answer, a body that is not a JSON object, or no name or supportedInterfaces.", help: 'check the peer\'s cardUrl in spec.a2aPeers: it must answer GET with its Agent Card' },
  AGENTCTL_E_A2A_VERSION: { exitCode: EXIT.remote, summary: "A peer's Agent Card advertises no JSON-RPC interface with the pinned protocol version; no message was sent.", help: 'use a peer that speaks A2A 1.0 over JSON-RPC, or set the peer\'s protocolVersion to one its card advertises' },
  AGENTCTL_E_A2A_ORIGIN: { exitCode: EXIT.remote, summary: "A peer named a URL (its JSON-RPC interface, or an artifact part) whose scheme, host or port differs from its card URL's; it is not contacted.", help: 'the peer must serve its interface and artifacts from the origin of the card URL the workflow names' },
  AGENTCTL_E_A2A_UNAUTHORIZED: { exitCode: EXIT.remote, summary: 'A peer answered 401 again after the header secrets were resolved anew.', help: 'check the secrets the peer\'s headers name; the credential is refused by the peer' },
  AGENTCTL_E_A2A_RPC_ERROR: { exitCode: EXIT.remote, summary: 'A peer answered a request with a JSON-RPC error.', help: 'read the error in the message; check the peer and the message sent' },
  AGENTCTL_E_A2A_RESPONSE_INVALID: { exitCode: EXIT.remote, summary: 'A peer answered with a non-2xx status, or with a body that holds no JSON-RPC 2.0 response, task or message.', help: 'check that the peer speaks A2A 1.0 over JSON-RPC; an unreadable answer to SendMessage leaves the effect uncertain' },
  AGENTCTL_E_A2A_UNCERTAIN: { exitCode: EXIT.runFailed, summary: 'SendMessage was sent and no task id came back (timeout, lost connection, unreadable answer): the peer may have taken the work, so the message is not sent again and the effect is uncertain.', help: 'ask the peer whether it took the message (by its messageId), record it with `agentctl effects reconcile`, then resume' },
  AGENTCTL_E_A2A_TASK_FAILED: { exitCode: EXIT.runFailed, summary: 'The remote task ended failed, rejected or canceled.', help: 'read the remote task\'s status in the recorded result (`agentctl inspect RUN`)' },
  AGENTCTL_E_A2A_POLL_LIMIT: { exitCode: EXIT.runFailed, summary: 'The remote task was still running when the peer\'s maxPolls were used up: it may still finish, so the effect is uncertain.', help: 'observe it with `agentctl effects continue-remote EFFECT` when it has finished, or raise maxPolls or pollIntervalMs of the peer' },
  AGENTCTL_E_A2A_ARTIFACT_INVALID: { exitCode: EXIT.remote, summary: 'An artifact of the remote task is malformed: a part without exactly one of text, raw, data or url, bad base64, or a part larger than 16 MiB.', help: 'the peer must send typed parts of at most 16 MiB each' },
  // Container engines (exit 6: an engine agentctl depends on is missing or not ready; nothing ran)
  AGENTCTL_E_CONTAINER_ENGINE_MISSING: { exitCode: EXIT.runFailed, summary: 'No container engine is installed or configured: neither a Docker nor a Podman socket exists.', help: 'install and start Docker or Podman, or point DOCKER_HOST / CONTAINER_HOST at a running engine' },
  AGENTCTL_E_CONTAINER_ENGINE_STOPPED: { exitCode: EXIT.runFailed, summary: "A container engine's socket exists but nothing answers on it: its daemon or API service is stopped.", help: 'start the engine (e.g. `systemctl start docker`, or `podman system service`), then run again' },
  AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE: { exitCode: EXIT.runFailed, summary: 'The configured container engine address cannot be reached (absent path, permission denied, refused or timed out).', help: 'check DOCKER_HOST / CONTAINER_HOST and the permissions of the socket' },
  AGENTCTL_E_CONTAINER_IMAGE_MISSING: { exitCode: EXIT.remote, summary: 'The pinned image is not present in the container engine; agentctl never pulls.', help: 'load the image into the engine first (`docker pull`, `docker load`, `podman load`), then run again' },
  // Persistence (exit 5)
  AGENTCTL_E_DB_OPEN: { exitCode: EXIT.persistence, summary: 'The database cannot be opened or created.', help: 'check --db: it must name a database file that can be opened (and created, for run)' },
  AGENTCTL_E_SQLITE_BINDING: { exitCode: EXIT.persistence, summary: "better-sqlite3's native binding is missing, or was built for another Node, so no database can be opened.", help: 'run `npm rebuild better-sqlite3` where agentctl is installed, with the Node that runs it, or reinstall agentctl without --ignore-scripts' },
  AGENTCTL_E_DB_SCHEMA_NEWER: { exitCode: EXIT.persistence, summary: 'The database was created by a newer agentctl.', help: 'use the agentctl version that created the database, or another --db' },
  AGENTCTL_E_DB_WRITE: { exitCode: EXIT.persistence, summary: 'A write to the database failed.', help: 'check the disk space and permissions of the database folder, then resume or run again' },
  AGENTCTL_E_STATE_KEY_MISSING: { exitCode: EXIT.persistence, summary: 'The environment variable that holds a state key the command needs is not set.', help: 'export the variable the message names with the base64 key of that key id, then run the command again' },
  AGENTCTL_E_STATE_KEY_MALFORMED: { exitCode: EXIT.persistence, summary: 'A state key variable does not hold a base64 encoding of exactly 32 bytes.', help: 'set the variable to the output of `openssl rand -base64 32` (a new key) or to the key the database was encrypted with' },
  AGENTCTL_E_STATE_KEY_MISMATCH: { exitCode: EXIT.persistence, summary: "A state key variable holds another key than the one the database's key id names.", help: 'set the variable to the key of the key id the message names; a database is never opened with another key' },
  AGENTCTL_E_STATE_KEY_REFERENCE: { exitCode: EXIT.persistence, summary: 'A key id or key variable name is malformed.', help: 'a key id is 1-128 letters, digits, ".", "_" or "-"; a variable name matches [A-Z_][A-Z0-9_]*' },
  AGENTCTL_E_STATE_ENVELOPE_INVALID: { exitCode: EXIT.persistence, summary: 'A protected value fails authentication, is malformed, names another key, or is plaintext where the database requires an envelope.', help: 'restore the database from a backup made with its key; `agentctl db encryption inventory` counts the damaged values' },
  AGENTCTL_E_STATE_ENCRYPTION_ENABLED: { exitCode: EXIT.persistence, summary: 'State encryption is already enabled on this database.', help: 'to change the key, use `agentctl db encryption rotate`' },
  AGENTCTL_E_STATE_ENCRYPTION_DISABLED: { exitCode: EXIT.persistence, summary: 'State encryption is not enabled on this database.', help: 'enable it first with `agentctl db encryption enable --key-id ID --key-env VAR`' },
  AGENTCTL_E_STATE_KEY_UNCHANGED: { exitCode: EXIT.persistence, summary: 'A rotation names the key id the database already uses.', help: 'rotate to a new key id, with its own key in its own variable' },
  AGENTCTL_E_DB_CORRUPT: { exitCode: EXIT.persistence, summary: 'The database file is damaged, or holds a row agentctl cannot read.', help: "restore the database from a backup, or start with a new --db; `sqlite3 FILE 'PRAGMA integrity_check'` shows the damage" },
  AGENTCTL_E_OUTCOME_NOT_RECORDED: { exitCode: EXIT.persistence, summary: 'An effect was performed but its outcome could not be recorded; the run stops.', help: 'free the database (disk space, a lock held by another process), then inspect the run: the effect may have happened' },
  AGENTCTL_E_RUN_ENDED: { exitCode: EXIT.persistence, summary: 'cancel names a run that already ended succeeded, failed or cancelled.', help: 'nothing to cancel: `agentctl inspect RUN` shows how the run ended' },
  AGENTCTL_E_RUN_LEASED: { exitCode: EXIT.persistence, summary: 'Another process holds the lease on this run.', help: 'wait for the other agentctl process driving this run to finish' },
  // Consumers of the public documents: plan emitters and run reporters (exit 2)
  AGENTCTL_E_FORMAT_UNKNOWN: { exitCode: EXIT.usage, summary: 'No plan emitter (`plan --emit`) or run reporter (`report --format`) has this format.', help: 'use one of the registered formats the message lists; `agentctl plugins list` shows who registers them' },
  AGENTCTL_E_OUTPUT_PATH: { exitCode: EXIT.usage, summary: 'The --out of `plan --emit` or `report` cannot take what is written: a file where a folder is needed, a folder where a file is, a missing folder, or a link out of the folder.', help: 'name a folder for `plan --emit --out`, a file in an existing folder for `report --out`' },
  AGENTCTL_E_EMIT_PATH: { exitCode: EXIT.usage, summary: 'A plan emitter returned a file path that would leave the --out folder (absolute, `..`), is empty or repeated, or content that is neither text nor bytes; nothing was written.', help: 'this is a bug in the emitter; report it to the plugin that registers the format' },
  AGENTCTL_E_OUTPUT_WRITE: { exitCode: EXIT.persistence, summary: 'The CLI could not write its output (e.g. the device is full); what it reports may be lost.', help: 'write the output somewhere with space, e.g. another file or a pipe; a run that happened is in the database (`agentctl runs list`)' },

  // Artifact store (exit 2 for what the operator named, exit 5 for the store itself)
  AGENTCTL_E_ARTIFACT_NOT_FOUND: { exitCode: EXIT.persistence, summary: 'No artifact with this digest is recorded in the database.', help: 'check the digest; `agentctl artifacts list` shows the blobs in this database' },
  AGENTCTL_E_ARTIFACT_DESTINATION_EXISTS: { exitCode: EXIT.persistence, summary: 'The export destination exists; it is replaced only with --overwrite.', help: 'choose another destination, or pass --overwrite to replace it' },
  AGENTCTL_E_ARTIFACT_EXPORT: { exitCode: EXIT.persistence, summary: 'The export destination cannot be written.', help: 'export to a path in an existing folder you can write' },
  AGENTCTL_E_ARTIFACT_WRITE: { exitCode: EXIT.persistence, summary: 'A blob could not be stored in the artifact store.', help: 'free space or fix permissions beside the database (the artifacts/ folder), then run again' },
  AGENTCTL_E_ARTIFACT_MISSING: { exitCode: EXIT.runFailed, summary: 'A file an action declares as its output was not there after the action succeeded.', help: 'make the command write every path listed in the action\'s artifacts, or remove the path from the list' },
  AGENTCTL_E_ARTIFACT_GC: { exitCode: EXIT.persistence, summary: 'The artifact store could not be read or a blob in it could not be removed.', help: 'check the permissions of the artifacts/ folder beside the database, then run the collection again' },
  AGENTCTL_E_ARTIFACT_CORRUPT: { exitCode: EXIT.persistence, summary: 'A stored blob is missing, or its bytes do not match its digest.', help: 'restore the blob from a backup; a later run that writes the same bytes heals it' },

  // Long-term memory
  AGENTCTL_E_MEMORY_PROVIDER_UNKNOWN: { exitCode: EXIT.usage, summary: 'spec.memory.longTerm names a memory store no plugin registers.', help: 'use provider: sqlite, or load the pack that registers the store' },
  AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED: { exitCode: EXIT.usage, summary: 'spec.memory.longTerm asks for an embedding no registered provider kind computes, or names a provider entry without a model.', help: 'name a spec.providers entry whose kind computes embeddings, with embedding.model, or use embedding: { provider: local_hash }' },
  AGENTCTL_E_MEMORY_INVALID: { exitCode: EXIT.usage, summary: 'A long-term memory entry or search breaks the contract: an empty namespace, key, text or metadata key, an entry over 1 MiB, a query over 64 KiB, a limit outside 1..100, dimensions outside 8..4096.', help: 'fix the entry or the search as the message says' },
  AGENTCTL_E_MEMORY_VECTOR_CORRUPT: { exitCode: EXIT.persistence, summary: 'A stored long-term memory vector is not the float32 values its dimensions say.', help: 'run `agentctl memory reindex NAMESPACE` to embed the namespace again' },
  AGENTCTL_E_MEMORY_VECTOR_MISMATCH: { exitCode: EXIT.persistence, summary: 'A stored long-term memory vector was made by another embedding (provider, model or dimensions) than the search.', help: 'search with the embedding the namespace was written with (spec.memory.longTerm.embedding), or write its entries again with this one' },

  // Cancellation (exit 130)
  AGENTCTL_E_CANCELLED: { exitCode: EXIT.cancelled, summary: 'The run was cancelled by a signal or --timeout-seconds.', help: 'run again, with a larger --timeout-seconds if it expired' },

  // Bugs (exit 1)
  AGENTCTL_E_INTERNAL: { exitCode: EXIT.internal, summary: 'An unexpected internal error; please report it.', help: 'this is a bug in agentctl; please report it with the command you ran' },
});

/** A core error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `code` is one of the core's codes. */
export function isCoreErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
