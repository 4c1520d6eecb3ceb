// Text made safe to show: below the CLI's writers and the run's human progress, which both print what tasks produced.

// C0 controls but tab and newline, DEL, C1 controls, bidirectional overrides and isolates, line and paragraph separators.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// What CI runners read as a command at the start of a line, after blanks: GitHub Actions `::error::` and `##[group]`,
// Azure Pipelines `##vso[...]`, TeamCity `##teamcity[...]`.
const CI_COMMAND = /^([ \t]*)([:#])(?=:|#(?:vso|teamcity)?\[)/gm;

const escaped = (character: string) => {
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * Text that came from a child process or a task, made safe to show in human mode on a terminal or in a CI log:
 * control characters are shown escaped (ESC as `\x1b`, a lone carriage return as `\x0d`; CRLF becomes a newline),
 * and a line a CI runner would take as a command (`::error::`, `::add-mask::`, `##[group]`, `##vso[...]`) has its
 * first character escaped, so it is printed, never obeyed. Tabs and newlines are kept.
 */
export function neutralize(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, escaped).replace(CI_COMMAND, (_match, blanks: string, first: string) => `${blanks}${escaped(first)}`);
}
