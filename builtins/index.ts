// The plugins agentctl ships. Each registers through the public SDK, exactly as a third-party pack would.
import a2a from './a2a/plugin.js';
import assign from './assign/plugin.js';
import assert from './assert/plugin.js';
import emitterArgo from './emitter-argo/plugin.js';
import emitterGithubMatrix from './emitter-github-matrix/plugin.js';
import emitterJson from './emitter-json/plugin.js';
import emitterKubernetesIndexedJob from './emitter-k8s-indexed-job/plugin.js';
import extensionProcess from './extension-process/plugin.js';
import isolationContainer from './isolation-container/plugin.js';
import isolationProcess from './isolation-process/plugin.js';
import longTermMemory from './long-term-memory/plugin.js';
import mcp from './mcp/plugin.js';
import memory from './memory/plugin.js';
import network from './network-policy/plugin.js';
import providerAnthropic from './provider-anthropic/plugin.js';
import providerFake from './provider-fake/plugin.js';
import providerGoogle from './provider-google/plugin.js';
import providerOpenAi from './provider-openai/plugin.js';
import reporterHtml from './reporter-html/plugin.js';
import reporterJunit from './reporter-junit/plugin.js';
import reporterMarkdown from './reporter-markdown/plugin.js';
import read from './read/plugin.js';
import secretsEnv from './secrets-env/plugin.js';
import secretsFile from './secrets-file/plugin.js';
import secretsProcess from './secrets-process/plugin.js';
import shellExec from './shell-exec/plugin.js';
import toolsWorkspace from './tools-workspace/plugin.js';
import write from './write/plugin.js';

export const builtinPlugins = [
  assign,
  assert,
  read,
  write,
  longTermMemory,
  memory,
  shellExec,
  extensionProcess,
  isolationProcess,
  isolationContainer,
  secretsEnv,
  secretsFile,
  secretsProcess,
  network,
  mcp,
  a2a,
  providerAnthropic,
  providerFake,
  providerGoogle,
  providerOpenAi,
  toolsWorkspace,
  emitterJson,
  emitterKubernetesIndexedJob,
  emitterGithubMatrix,
  emitterArgo,
  reporterMarkdown,
  reporterHtml,
  reporterJunit,
] as const;
