// The run as JUnit XML: `report RUN --format junit`, for GitLab's `artifacts:reports:junit` and Jenkins' `junit` step.
import { definePlugin } from '@agentctl/sdk';
import { renderJunit } from './render.js';

export default definePlugin({
  name: 'builtin.reporter.junit',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Reports a run as JUnit XML: one test suite per run, one test case per task.',
  setup(api) {
    api.registerRunReporter({
      format: 'junit',
      description: 'JUnit XML: one testsuite per run, one testcase per task (failed tasks as failures, skipped ones skipped)',
      mediaType: 'application/xml',
      report: ({ inspection }) => renderJunit(inspection),
    });
  },
});
