// The `sqlite` memory store, registered like any provider: it lives in the state database, so it belongs to the core.
import { definePlugin } from '@agentctl/sdk';
import { HOST_VERSION } from '../version.js';
import { SqliteMemoryStore } from './sqlite-store.js';

export default definePlugin({
  name: 'builtin.memory.sqlite',
  version: HOST_VERSION,
  hostRange: `^${HOST_VERSION}`,
  description: 'Long-term memory in the state database: text, vector and hybrid search of one namespace at a time.',
  setup(api) {
    api.registerMemoryStore({
      provider: 'sqlite',
      description: 'entries kept in the long_term_memory table of the state database',
      open: (context) => SqliteMemoryStore.open(context),
    });
  },
});
