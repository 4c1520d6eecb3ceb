// A real run for the report tests, made through the CLI: a shell task, an agent with a tool (fake provider), three
// approvals granted with an actor and a reason, a failed task (`failure: continue`) whose process prints a canary
// secret, a task skipped after it, and an artifact (builtin.write). Texts that try to inject markup ride along.
import { expect } from 'chai';
import { READ_TOOL } from '../support/agents.js';
import { baseEnv, runCli } from '../support/cli.js';
import { outcome, workflow, type WorkflowSpec } from './helpers.js';

/** A decision reason that would be markup if any report failed to escape it. */
export const INJECTED_REASON = '<script>alert(1)</script> & <img src=x onerror=alert(2)> ]]> "quoted"';
/** The agent's final text, with markup of its own. */
export const AGENT_TEXT = 'DONE <b>bold</b> ::error::not a command';

export const JOURNEY = workflow(
  {
    runtime: { budgets: { maxTasks: 20, maxToolCalls: 5, maxTurns: 10 } },
    providers: { scripted: { kind: 'fake' } },
    policy: { writableRoots: ['out'], processAllowlist: ['sh'], toolsAllow: ['read_service', 'process.exec', 'filesystem.write'], environmentAllowlist: ['TOKEN'], approval: 'high_risk' },
    tools: {
      read_service: READ_TOOL,
    },
    agents: {
      inspector: {
        provider: 'scripted',
        model: 'scripted',
        instructions: 'Read the service fixture with read_service, then name its marker.',
        tools: ['read_service'],
        maxTurns: 2,
        maxToolCalls: 1,
        maxOutputTokens: 64,
        timeoutSeconds: 10,
        providerOptions: { toolInput: { path: 'fixture/service.txt' }, finalText: AGENT_TEXT },
      },
    },
    actions: {
      hello: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'echo hello'] },
      boom: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'echo "token=$TOKEN" >&2; exit 3'], env: { TOKEN: { env: 'REPORT_CANARY' } } },
      save: { kind: 'builtin.write' },
    },
    tasks: [
      { id: 'hello', uses: 'action:hello' },
      { id: 'inspect', uses: 'agent:inspector', needs: ['hello'], with: { prompt: 'Which marker does the service fixture carry?' } },
      { id: 'gated', uses: 'action:hello', needs: ['hello'] },
      { id: 'boom', uses: 'action:boom', needs: ['hello'], failure: 'continue' },
      { id: 'after', uses: 'action:hello', needs: ['boom'] },
      { id: 'report', uses: 'action:save', needs: ['inspect', 'gated'], with: { path: 'out/answer.txt', content: 'answer: ${{ tasks.inspect.output.text }}' } },
    ],
  } as WorkflowSpec,
  'report-journey',
);

export interface Journey {
  readonly runId: string;
  readonly inspection: any;
  /** Runs the CLI in the workspace against its database, with the canary in the environment. */
  readonly cli: (...args: string[]) => ReturnType<typeof runCli>;
}

/** Runs JOURNEY to its end in `ws`: every pause's approvals granted by `alice`, then resumed; the run succeeds. */
export function runJourney(ws: { dir: string; db: string; write(name: string, content: string): string }, canary: string): Journey {
  const file = ws.write('report-journey.yaml', JOURNEY);
  ws.write('fixture/service.txt', 'marker: SERVICE_FIXTURE\n');
  const env = baseEnv({ REPORT_CANARY: canary });
  const cli = (...args: string[]) => runCli([...args, '--db', ws.db], { env, cwd: ws.dir });
  const json = (...args: string[]) => cli(...args, '--output', 'json');
  const runId = outcome(json('run', file), 3).data.runId as string;
  let resumed = 3;
  for (let round = 0; round < 5 && resumed === 3; round += 1) {
    for (const approval of outcome(json('approvals', 'list', runId), 0).data) outcome(json('approvals', 'approve', approval.approvalId, '--actor', 'alice', '--reason', INJECTED_REASON), 0);
    const result = json('resume', runId);
    resumed = result.status ?? -1;
  }
  expect(resumed, 'the journey ends after its approvals').to.equal(0);
  return { runId, inspection: outcome(json('inspect', runId), 0).data, cli };
}
