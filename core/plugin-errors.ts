// The open error-code space: core codes plus the codes each plugin declares. Anything a plugin throws crosses into
// the core through `normalize`, so the user always sees a known code, its exit code, and which plugin and hook.
import {
  AgentctlError,
  diagnostic,
  EffectFailure,
  ERROR_CODES,
  errorCodePrefix,
  errorMessage,
  EXIT,
  isAgentctlError,
  isCoreErrorCode,
  isEffectFailure,
  type Diagnostic,
  type ErrorCodeDeclaration,
  type ExitCode,
} from '@agentctl/sdk';

const PLUGIN_EXIT_CODES = new Set([2, 3, 4, 5, 6]);
const CODE_PATTERN = /^[A-Z][A-Z0-9_]*$/;

export interface DeclaredCode extends ErrorCodeDeclaration {
  readonly plugin: string;
}

export class ErrorCodeRegistry {
  readonly #codes = new Map<string, DeclaredCode>();

  /** Checks and records a plugin's declarations; nothing is recorded when one is wrong. */
  declare(plugin: string, codes: Readonly<Record<string, ErrorCodeDeclaration>> | undefined): void {
    if (codes === undefined) return;
    const prefix = errorCodePrefix(plugin);
    const problems: string[] = [];
    if (typeof codes !== 'object' || codes === null) problems.push('errorCodes must be an object');
    for (const [code, declaration] of Object.entries(codes ?? {})) {
      if (!CODE_PATTERN.test(code) || !code.startsWith(prefix) || code.length === prefix.length) problems.push(`${code} must start with ${prefix} and use A-Z, 0-9 and _`);
      else if (code.startsWith('AGENTCTL_E_')) problems.push(`${code}: the AGENTCTL_E_ prefix is the core's`);
      else if (this.#codes.has(code)) problems.push(`${code} is already declared by ${this.#codes.get(code)!.plugin}`);
      if (!PLUGIN_EXIT_CODES.has(declaration?.exitCode)) problems.push(`${code} has exit code ${String(declaration?.exitCode)}; use 2, 3, 4, 5 or 6`);
      if (typeof declaration?.description !== 'string' || declaration.description.trim() === '' || declaration.description.includes('\n')) {
        problems.push(`${code} needs a one-line description`);
      }
    }
    if (problems.length > 0) {
      throw new AgentctlError('AGENTCTL_E_PLUGIN_ERROR_CODE', `plugin ${plugin} declares invalid error codes: ${problems.join('; ')}`, {
        help: `declare each code as ${prefix}NAME: { exitCode, description }`,
      });
    }
    for (const [code, declaration] of Object.entries(codes)) this.#codes.set(code, { plugin, exitCode: declaration.exitCode, description: declaration.description });
  }

  declared(code: string): DeclaredCode | undefined {
    return this.#codes.get(code);
  }

  /** Every declared code, for `plugins list` and the docs. */
  all(): [string, DeclaredCode][] {
    return [...this.#codes.entries()];
  }

  /** Whether `plugin` may raise `code`: a core code, or one it declared. */
  allows(plugin: string, code: string): boolean {
    return isCoreErrorCode(code) || this.#codes.get(code)?.plugin === plugin;
  }

  /** The exit code of a code raised by `plugin`, or undefined when it may not raise it. */
  exitCodeOf(plugin: string, code: string): ExitCode | undefined {
    if (isCoreErrorCode(code)) return undefined;
    const declared = this.#codes.get(code);
    return declared?.plugin === plugin ? (declared.exitCode as ExitCode) : undefined;
  }

  /** The exit code a diagnostic's code maps to: the core's table, or the raising plugin's declaration. */
  exitCodeFor(item: Diagnostic): ExitCode {
    const code = String(item.code);
    if (isCoreErrorCode(code)) return ERROR_CODES[code].exitCode;
    const declared = this.#codes.get(code);
    return declared && (item.plugin === undefined || declared.plugin === item.plugin) ? (declared.exitCode as ExitCode) : EXIT.runFailed;
  }

  /** A diagnostic a plugin reported (not threw), named after it; an undeclared code becomes AGENTCTL_E_PLUGIN. */
  attribute(item: Diagnostic, plugin: string, hook: string): Diagnostic {
    return this.allows(plugin, String(item.code)) ? { ...item, plugin: item.plugin ?? plugin, hook: item.hook ?? hook } : this.#undeclared(item, plugin, hook);
  }

  /**
   * Turns anything a plugin threw into an AgentctlError the core can report: a known code keeps its code and gets its
   * declared exit code; an undeclared code becomes AGENTCTL_E_PLUGIN; anything else AGENTCTL_E_PLUGIN_FAILED. The
   * diagnostics name the plugin and the hook. An effect failure stays one, with its outcome.
   */
  normalize(error: unknown, plugin: string, hook: string): AgentctlError {
    const stamp = (item: Diagnostic): Diagnostic => ({ ...item, plugin: item.plugin ?? plugin, hook: item.hook ?? hook });
    if (!isAgentctlError(error)) {
      const message = `plugin ${plugin} failed in hook ${hook}: ${errorMessage(error)}`;
      return new AgentctlError('AGENTCTL_E_PLUGIN_FAILED', message, { cause: error, diagnostics: [diagnostic('AGENTCTL_E_PLUGIN_FAILED', { message, plugin, hook })] });
    }
    const code = String(error.code);
    // An error may carry the plugin that raised it (a policy plugin's denial surfaces inside the kind's dispatch).
    const origin = error.diagnostics[0]?.plugin ?? plugin;
    if (this.allows(origin, code)) {
      const exitCode = this.exitCodeOf(origin, code);
      if (exitCode !== undefined) error.exitCode = exitCode;
      error.diagnostics.forEach((item, index) => {
        error.diagnostics[index] = this.allows(item.plugin ?? plugin, String(item.code)) ? stamp(item) : this.#undeclared(item, plugin, hook);
      });
      return error;
    }
    const message = `plugin ${plugin} raised undeclared error code ${code} in hook ${hook}: ${error.message}`;
    const diagnostics = [this.#undeclared(diagnostic(code, { message: error.message }), plugin, hook), ...error.diagnostics.slice(1).map(stamp)];
    const options = { diagnostics, cause: error };
    return isEffectFailure(error) ? new EffectFailure(error.outcome, 'AGENTCTL_E_PLUGIN', message, { ...options, details: error.details }) : new AgentctlError('AGENTCTL_E_PLUGIN', message, options);
  }

  #undeclared(item: Diagnostic, plugin: string, hook: string): Diagnostic {
    const { code: _code, severity: _severity, ...rest } = item;
    return diagnostic('AGENTCTL_E_PLUGIN', {
      ...rest,
      message: `plugin ${plugin} raised undeclared error code ${item.code} in hook ${hook}: ${item.message}`,
      plugin,
      hook,
      help: `the plugin must declare ${item.code} in its errorCodes; report this to the plugin's authors`,
    });
  }
}
