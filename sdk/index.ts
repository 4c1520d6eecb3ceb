// The public SDK: the contract builtins and third-party packs use to extend agentctl. Named exports only.
// It imports nothing from the core: the core implements what is declared here.
export type { ActionDescription, ActionKind, DescribeContext, DescribedEffect, DispatchContext, InputContext, PerformedEffect, PluginLog, ProcessDescription, RedactOptions } from './action-kind.js';
export type { ContinuedCall, ProtocolCall } from './protocol-call.js';
export type { EffectAccess, EffectClass, EffectOptions, EffectProfile, EffectRequest, Idempotency, ProcessAccess, Risk } from './effects.js';
export { ERROR_CODES, EXIT, isCoreErrorCode, type CodeInfo, type ErrorCode, type ExitCode } from './error-codes.js';
export {
  AgentctlError,
  diagnostic,
  EffectFailure,
  errorMessage,
  isAgentctlError,
  isEffectFailure,
  type AgentctlErrorOptions,
  type AnyErrorCode,
  type Diagnostic,
  type DiagnosticInit,
  type EffectFailureOptions,
  type Severity,
} from './errors.js';
export type { CollectedFile, FileReadOptions, FileService } from './files.js';
export {
  MEMORY_ENTRY_FORMAT_VERSION,
  MEMORY_LIMITS,
  type LongTermMemoryService,
  type MemoryContent,
  type MemoryEmbedder,
  type MemoryEmbeddingIdentity,
  type MemoryEntry,
  type MemoryQuery,
  type MemoryRecord,
  type MemorySearchHit,
  type MemorySearchMode,
  type MemoryStore,
  type MemoryStoreContext,
  type MemoryStoreProvider,
  type MemoryWrite,
} from './long-term-memory.js';
export { utf8Text } from './files.js';
export type { CommitEvent, CompileContext, PreflightContext } from './hooks.js';
export type { DispatchInterceptorInput, EffectInterceptorInput, InterceptedTask, Interceptor, InterceptorNext, PropagationContext, Propagator } from './interceptors.js';
export {
  processLimitFields,
  type DispatchProcessService,
  type IsolatedAction,
  type IsolationHostReport,
  type IsolationMode,
  type IsolationOptions,
  type IsolationOptionsDeclaration,
  type MountSource,
  type OutputLimits,
  type ProcessCapture,
  type ProcessEnd,
  type ProcessLimits,
  type ProcessMount,
  type ProcessResult,
  type ProcessService,
  type ProcessSpec,
} from './isolation.js';
export {
  isNetworkFailure,
  NetworkFailure,
  type CustomCaReference,
  type HttpRequest,
  type HttpResponse,
  type NetworkClient,
  type NetworkClientFactory,
  type NetworkSettings,
} from './network.js';
export type {
  ContentBlock,
  EmbeddingCallContext,
  EmbeddingRequest,
  EmbeddingResponse,
  EmbeddingUsage,
  FinishReason,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelTool,
  ModelUsage,
  ProviderCallContext,
  ProviderProgress,
  ProviderCapabilities,
  ProviderSettings,
  ReasoningSettings,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
} from './provider.js';
export { invalidAnswer, parseProviderAnswer, postProviderJson, providerNetworkFailure, providerStatusFailure, type ProviderExchange } from './provider-http.js';
export type { ToolContext, ToolKind, ToolSettings } from './tools.js';
export { MAX_WORKING_MEMORY_VALUE_BYTES, type MemoryWriteKeys, type WorkingMemory } from './working-memory.js';
export { canonicalJson, JsonDepthError, MAX_JSON_DEPTH, nestsDeeperThan, parseJsonAnswer, type JsonObject, type JsonValue } from './json.js';
export { isJsonObject, jsonRpcMessages, serverSentEventData } from './json-rpc.js';
/**
 * zod, the schema library of action kinds and options: the host's own copy, so a pack's schemas are built by the same
 * zod version that checks them, and a pack needs no dependency of its own for it.
 */
export { z } from 'zod';
export { jsonSchemaProblems, jsonSchemaValidator } from './json-schema.js';
export { OutputCapture, type OutputOverflow } from './output-capture.js';
export { decodeOutput, outputCut, processFailure, redactedOutput, tail, type ProcessReading } from './process-outcome.js';
export {
  commandPreflight,
  outputLimitsOf,
  processAccessOf,
  processActionFields,
  processDescriptionOf,
  processEnvironment,
  processLimitsOf,
  processSecretReferences,
  processString,
  type ProcessActionFields,
} from './process-action.js';
export {
  describeProcess,
  mountAccessOf,
  prepareProcess,
  processEffectAccess,
  processMountSchema,
  type PreparedProcess,
  type ProcessDescribeOptions,
  type ProcessDispatchContext,
  type ProcessLaunch,
} from './process-prelude.js';
export type { CapturedVars, CompensationSettings, CompensationTarget, CompiledAction, CompiledAgent, CompiledCompensation, CompiledLongTermMemory, CompiledPlan, CompiledProvider, CompiledTask, CompiledTool, ControlNode, ModelPricing, PricingTable, RunBudgets, RuntimeSettings, TaskExpansion, TaskNamespace } from './plan.js';
export {
  definePlugin,
  defineActionKind,
  errorCodePrefix,
  type ActionKindDefinition,
  type ErrorCodeDeclaration,
  type PluginApi,
  type PluginDefinition,
  type PluginExitCode,
  type PluginHooks,
  type PolicyHook,
  type PolicyTapOptions,
  type TapOnly,
  type TapOptions,
} from './plugin.js';
export {
  defineIsolation,
  defineProvider,
  defineSecretResolver,
  defineTool,
  type ContributionIdentity,
  type IsolationDefinition,
  type ProviderDefinition,
  type SecretResolverContribution,
  type SecretResolverDefinition,
  type ToolDefinition,
} from './define.js';
export { networkPolicySchema, POLICY_STAGES, policySchema, type PolicyRequest, type PolicyStage, type PolicyVerdict, type PolicyVote, type ResolvedPolicy } from './policy.js';
export { CLI_API_VERSION } from './api-version.js';
// Consumers of the public documents: plan emitters and run reporters.
export type { EmittedFile, PlanDocument, PlanEmitter, PlanStages, PlanEmitterInput, RunInspection, RunReporter, RunReporterInput, RunReportPart } from './consumers.js';
export { dnsLabel, generatedNotice, MAX_SHARDS, requireShardedPlan, shardedPlan, stageArguments, stageLedger, type ShardedPlan, type ShardedPlanResult, type StageArguments, type StageLayout, type StagesRefusal, type StagesRefusalCodes } from './scale-out.js';
export { dnsSubdomain, NOT_RETRIED_EXIT_CODES, POD_SECURITY_CONTEXT, podNames, podStageOptions, stageContainer, stageVolumes, type PodNames, type PodStageOptions } from './scale-out-pods.js';
export { defineSpecSection, type DefinedSpecSection, type SectionSecret, type SectionUrl, type SpecSection, type SpecSectionValues } from './spec-section.js';
export type { ApprovalAnswer, ApprovalQuestion, TaskBody, TaskBodyContext, TaskBodyLookup } from './task-body.js';
export { secretKindLabel, secretReferenceSchema, secretReferenceTarget, type SecretReference, type SecretResolver, type SecretResolverContext, type TaskSecrets } from './secrets.js';
export {
  APPROVAL_STATES,
  AUDIT_EVENTS,
  EFFECT_STATES,
  RUN_MODES,
  RUN_STATES,
  TASK_DISPOSITIONS,
  TASK_STATES,
  type ApprovalState,
  type AuditEventType,
  type Disposition,
  type EffectState,
  type RunMode,
  type RunState,
  type TaskState,
} from './states.js';
