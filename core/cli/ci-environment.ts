// Which CI system, if any, runs this process, told by the variables each system sets itself. The CLI uses it to keep
// a person's conveniences (prompts, live progress) out of CI logs, and to meet a CI system where its users look
// (a job summary, annotations) unless `--no-ci` says not to.

/** A CI system agentctl knows by its own variables; `other` is any system that sets only `CI`. */
export type CiSystem = 'github-actions' | 'gitlab-ci' | 'jenkins' | 'other';

/** A variable set to something other than empty, `false` or `0`. */
const isSet = (value: string | undefined): boolean => value !== undefined && value !== '' && value !== 'false' && value !== '0';

/** The CI system the environment names, or null outside CI. */
export function ciSystem(environment: NodeJS.ProcessEnv): CiSystem | null {
  if (environment.GITHUB_ACTIONS === 'true') return 'github-actions';
  if (environment.GITLAB_CI === 'true') return 'gitlab-ci';
  if (isSet(environment.JENKINS_URL) && isSet(environment.BUILD_ID)) return 'jenkins';
  return isSet(environment.CI) ? 'other' : null;
}

/** Whether the process runs in CI (any system). */
export const inCi = (environment: NodeJS.ProcessEnv): boolean => ciSystem(environment) !== null;
