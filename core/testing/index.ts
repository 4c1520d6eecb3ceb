// The test kit, published to plugin authors as `@agentctl/testing`: real hosts (the builtins plus the plugins under
// test, or the plugin alone), a real temporary SQLite ledger and real temporary workspaces. It is built on core, so it
// lives outside sdk/; its published declarations name only sdk/ types and its own.
export { ActionKindTester, type ActionKindCases, type ActionKindTesterOptions, type ExpectedError, type InvalidActionCase, type ValidActionCase } from './action-kind-tester.js';
export { temporaryFolder, useDatabase, useWorkspace, writeFiles, type DatabaseFixture, type FileFixture, type FileFixtures, type WorkspaceFixture } from './fixtures.js';
export { createTestHost, type RegisteredPlugin, type TestHost } from './host.js';
export { ProviderTester, StubNetwork, type ProviderTesterOptions, type RecordedRequest, type ScriptedReply } from './provider-tester.js';
export { runAction, type ActionCase, type ActionResult } from './run-action.js';
export { SecretResolverTester, type SecretContextOverrides } from './secret-resolver-tester.js';
