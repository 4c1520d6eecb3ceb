// Agent budgets on the run's reservation ledger: a model request reserves its worst case (one request, one turn on
// its first attempt, maxOutputTokens, an upper bound of its input tokens, the priced cost) before it is recorded,
// and is settled to the usage the provider reported; a tool call reserves one of maxToolCalls.
import { canonicalJson, type JsonValue, type ModelRequest, type ModelUsage, type PricingTable } from '@agentctl/sdk';
import type { EffectBudget } from '../runner/budget.js';
import { isBudgetExceeded, type RunBudget } from '../runner/budget.js';

type Amounts = Record<string, number>;

/** The dimensions an agent uses, named like the ledger's (the budget field without `max`). */
const AGENT_DIMENSIONS = ['providerRequests', 'turns', 'toolCalls', 'inputTokens', 'outputTokens', 'totalTokens', 'costMicrousd'];

/** Micro-US-dollars of `usage` at `rates`, rounded up. */
export function priceOf(pricing: PricingTable | undefined, key: string, usage: { inputTokens: number; outputTokens: number }): number {
  const rates = pricing?.models[key];
  if (!rates) return 0;
  return Math.ceil((usage.inputTokens * rates.inputMicrousdPerMillionTokens + usage.outputTokens * rates.outputMicrousdPerMillionTokens) / 1_000_000);
}

/**
 * An upper bound of a request's input tokens: its UTF-8 bytes. Byte-level tokenizers never emit more tokens than
 * bytes, so the reservation can only be too large, never too small.
 */
export const inputTokenBound = (request: ModelRequest, canonical: (value: JsonValue) => string = canonicalJson) => Buffer.byteLength(canonical(request as unknown as JsonValue), 'utf8');

/** The budget side of one agent task attempt. It is also the effect budget of the task's effects. */
export class AgentBudget implements EffectBudget {
  #next: { amounts: Amounts; what: string } | undefined;
  readonly #actual = new Map<string, Amounts>();
  readonly #reserved = new Map<string, Amounts>();

  constructor(
    private readonly budget: RunBudget,
    private readonly taskId: string,
    private readonly attempt: number,
    private readonly pricing: PricingTable | undefined,
    /** The task's other effects (an action tool's process) reserve what the action's own budget says. */
    private readonly fallback: EffectBudget | undefined,
  ) {}

  static applies(budget: RunBudget | undefined): budget is RunBudget {
    return budget !== undefined && AGENT_DIMENSIONS.some((dimension) => budget.limited(dimension));
  }

  expectModelRequest(providerKind: string, request: ModelRequest, turn: number, attempt: number, canonical?: (value: JsonValue) => string): void {
    const inputTokens = inputTokenBound(request, canonical);
    const outputTokens = request.maxOutputTokens;
    this.#next = {
      amounts: {
        providerRequests: 1,
        turns: attempt === 1 ? 1 : 0,
        inputTokens,
        outputTokens,
        totalTokens: inputTokens + outputTokens,
        costMicrousd: priceOf(this.pricing, `${providerKind}/${request.model}`, { inputTokens, outputTokens }),
      },
      what: `model request (turn ${turn}, attempt ${attempt}) of task ${this.taskId}`,
    };
  }

  /** What the provider reported for the request recorded as `effectId`. */
  used(effectId: string, providerKind: string, model: string, usage: ModelUsage, _turn: number, attempt: number): void {
    this.#actual.set(effectId, {
      providerRequests: 1,
      turns: attempt === 1 ? 1 : 0,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.totalTokens,
      costMicrousd: priceOf(this.pricing, `${providerKind}/${model}`, usage),
    });
  }

  /** A tool call takes one of maxToolCalls when it is made (keyed, so a resumed task does not take it twice). */
  expectToolCall(index: number, tool: string): void {
    if (!this.budget.limited('toolCalls')) return;
    const key = `toolcall:${this.taskId}:${this.attempt}:${index}`;
    try {
      this.budget.reserve(key, { toolCalls: 1 }, `tool call ${index} (${tool}) of task ${this.taskId}`, this.taskId);
    } catch (error) {
      if (isBudgetExceeded(error)) this.budget.refused(error, this.taskId, key);
      throw error;
    }
    this.budget.settle(key, { toolCalls: 1 });
  }

  reserve(effectId: string, operation: string): void {
    const next = this.#next;
    this.#next = undefined;
    if (!next) return this.fallback?.reserve(effectId, operation);
    this.#reserved.set(effectId, next.amounts);
    this.budget.reserve(effectId, next.amounts, next.what, this.taskId);
  }

  refused(error: Parameters<EffectBudget['refused']>[0]): void {
    this.budget.refused(error, this.taskId);
  }

  /** A request without reported usage (failed, or in doubt) keeps counting as one request and its worst case. */
  settle(effectId: string): void {
    const reserved = this.#reserved.get(effectId);
    if (!reserved) return this.fallback?.settle(effectId);
    this.budget.settle(effectId, this.#actual.get(effectId) ?? reserved);
  }
}
