// Node's on-disk module compile cache (Node 22.1+; Node 20 has none): later starts compile less of the bundle.
import module from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * The folder of the compile cache: `$XDG_CACHE_HOME/agentctl/compile-cache`, else `~/.cache/agentctl/compile-cache`.
 * Undefined where Node already chose one (`NODE_COMPILE_CACHE`) or no home folder is known. An XDG_CACHE_HOME that is
 * not absolute is ignored, as the XDG base directory rules ask.
 */
export function compileCacheFolder(environment: NodeJS.ProcessEnv = process.env, home: () => string = homedir): string | undefined {
  if (environment.NODE_COMPILE_CACHE) return undefined;
  const xdg = environment.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'agentctl', 'compile-cache');
  let folder: string;
  try {
    folder = environment.HOME || home();
  } catch {
    return undefined;
  }
  return folder && isAbsolute(folder) ? join(folder, '.cache', 'agentctl', 'compile-cache') : undefined;
}

/**
 * Enables the compile cache where the runtime has one. Never fails: a folder that cannot be created or written (a
 * read-only home, an image's read-only root) leaves agentctl running without the cache, as Node itself does.
 */
export function enableCompileCache(environment: NodeJS.ProcessEnv = process.env): void {
  const enable = (module as { enableCompileCache?: (folder?: string) => unknown }).enableCompileCache;
  if (!enable || environment.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    enable(compileCacheFolder(environment));
  } catch {
    // The cache only speeds up later starts.
  }
}
