// The plan as JSON: `plan FILE --emit json --out DIR` writes DIR/plan.json, the document `plan --output json` prints.
import { definePlugin } from '@agentctl/sdk';

export default definePlugin({
  name: 'builtin.emitter.json',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Emits the plan document as plan.json.',
  setup(api) {
    api.registerPlanEmitter({
      format: 'json',
      description: 'the plan document (`plan --output json` data) as plan.json',
      emit: ({ plan }) => [{ path: 'plan.json', content: `${JSON.stringify(plan, null, 2)}\n` }],
    });
  },
});
