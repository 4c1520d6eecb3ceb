// The run as one self-contained HTML page: `report RUN --format html`, for a CI artifact or a browser on file://.
import { definePlugin } from '@agentctl/sdk';
import { renderHtml } from './render.js';

export default definePlugin({
  name: 'builtin.reporter.html',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Reports a run as one static HTML page: header, timeline, task graph, effects, approvals, budget, artifacts, agents, errors.',
  setup(api) {
    api.registerRunReporter({
      format: 'html',
      description: 'one self-contained HTML page (no script, no fetch): timeline, task graph, effects, approvals, budget, artifacts, agents, errors',
      mediaType: 'text/html',
      // The audit trail gives the paused spans of the timeline and the retries of each task.
      needs: ['audit'],
      report: ({ inspection }) => renderHtml(inspection),
    });
  },
});
