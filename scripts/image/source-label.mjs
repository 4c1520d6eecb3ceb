// The image's `org.opencontainers.image.source` label comes from the checkout's repository address (build.mjs).

/**
 * A repository address as a web address for the source label, or undefined when it is none (a local path, say):
 * `git+https://…` and `git@host:path` are rewritten, and any user or token in the address is dropped.
 */
export function webAddress(remote) {
  const scp = /^[\w.-]+@([\w.-]+):(.+)$/.exec(remote ?? '');
  const text = scp ? `https://${scp[1]}/${scp[2]}` : (remote ?? '').replace(/^git\+/, '');
  if (!/^https?:\/\//.test(text)) return undefined;
  const url = new URL(text);
  url.username = '';
  url.password = '';
  return url.href.replace(/\.git$/, '');
}
