// {file: PATH} secret references: a regular file below a policy.secretFileRoots entry, at most 64 KiB of UTF-8.
import { definePlugin } from '@agentctl/sdk';
import { checkReadable, checkStats, locate, readBounded, referencedPath, refuse, secretText, statOnly } from './read.js';

export default definePlugin({
  name: 'builtin.secrets.file',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Resolves {file: PATH} secret references from a regular file below policy.secretFileRoots.',
  setup(api) {
    api.registerSecretResolver('file', async (reference, context) => {
      const path = referencedPath(reference.file);
      const real = locate(path, context);
      if (context.checkOnly) {
        // Permission is asked of the kernel (access), so an unreadable file is not reported present; nothing is opened.
        checkStats(statOnly(real, path), path);
        checkReadable(real, path);
        return '';
      }
      return secretText(readBounded(real, path), () => refuse('AGENTCTL_E_SECRET_FILE_ENCODING', path, 'is not valid UTF-8'));
    });
  },
});
