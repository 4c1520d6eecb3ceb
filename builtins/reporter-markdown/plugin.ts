// The run as Markdown: `report RUN --format markdown`, readable in a pull request or a CI summary.
import { definePlugin } from '@agentctl/sdk';
import { renderMarkdown } from './render.js';

export default definePlugin({
  name: 'builtin.reporter.markdown',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Reports a run as Markdown: state, exit code and times, tasks, effects and approvals.',
  setup(api) {
    api.registerRunReporter({
      format: 'markdown',
      description: 'a readable Markdown report: header, tasks, effects, approvals',
      mediaType: 'text/markdown',
      report: ({ inspection }) => renderMarkdown(inspection),
    });
  },
});
