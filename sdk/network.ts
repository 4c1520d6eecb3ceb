// Outbound HTTP under the workflow's network policy (SPEC §10). Providers and packs never open sockets themselves:
// they get a NetworkClient from the host, built by the plugin that registered the network client factory.
import { AgentctlError, type AgentctlErrorOptions, type AnyErrorCode } from './errors.js';
import type { SecretReference } from './secrets.js';

/** `spec.policy.network` after defaults, plus the host allowlist (`spec.policy.networkAllowlist`). */
export interface NetworkSettings {
  /** Exact hosts, or `*.suffix` (matches a subdomain of suffix, never suffix itself). IP literals are exact hosts. */
  readonly allowlist: readonly string[];
  /** `http` and/or `https`. */
  readonly allowedSchemes: readonly string[];
  /** Ports a URL may name, explicitly or by its scheme's default; empty means any port. */
  readonly allowedPorts: readonly number[];
  /** Bounds DNS resolution and connection setup. */
  readonly connectTimeoutSeconds: number;
  /** Upper bound of a response body; a client's own lower limit wins. */
  readonly maxResponseBytes: number;
  /** Private, loopback, link-local and other non-public addresses are refused unless this is true. */
  readonly allowPrivate: boolean;
  /** Proxy environment variables are ignored unless this is true. */
  readonly allowProxy: boolean;
  /** A reviewed PEM bundle (certificates only) added in memory to the trusted roots, already resolved. */
  readonly customCa?: string;
}

/** The reference of `policy.network.customCa`, as written (resolved by the host before a client is built). */
export type CustomCaReference = SecretReference;

/** One HTTP request. Bodies are small JSON documents: nothing streams. */
export interface HttpRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** The whole exchange, from DNS to the last body byte. */
  readonly timeoutMs: number;
  /** The caller's own cap; the policy's `maxResponseBytes` applies when it is lower. */
  readonly maxResponseBytes?: number;
  readonly signal: AbortSignal;
}

/** A complete response. A redirect status is never followed: it is an error (AGENTCTL_E_NETWORK_REDIRECT). */
export interface HttpResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** HTTP under policy. Every URL is checked, resolved once and pinned before a byte is sent. */
export interface NetworkClient {
  /**
   * Applies the policy to `url` (scheme, userinfo, host, port) and resolves its host, classifying every address,
   * without connecting. Throws a NetworkFailure with `sent: false` when the URL may not be reached.
   */
  check(url: string, signal: AbortSignal): Promise<void>;
  /** Sends one request. Throws a NetworkFailure whose `sent` says whether any byte may have reached the server. */
  request(request: HttpRequest): Promise<HttpResponse>;
}

/** Builds the client of one run from its settings. Throws (before any request) when the settings are unusable. */
export type NetworkClientFactory = (settings: NetworkSettings) => NetworkClient;

const NETWORK_FAILURE_BRAND = Symbol.for('agentctl.network-failure');

/**
 * Why an HTTP exchange failed. `sent` is false when nothing reached the server (policy, DNS, connection refused):
 * the caller may treat that as a definite failure. When `sent` is true the server may have acted on the request.
 */
export class NetworkFailure extends AgentctlError {
  readonly sent: boolean;
  constructor(code: AnyErrorCode, message: string, sent: boolean, options: AgentctlErrorOptions = {}) {
    super(code, message, options);
    this.name = 'NetworkFailure';
    this.sent = sent;
    Object.defineProperty(this, NETWORK_FAILURE_BRAND, { value: true });
  }
}

/** True for a NetworkFailure from any copy of the SDK. */
export function isNetworkFailure(value: unknown): value is NetworkFailure {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[NETWORK_FAILURE_BRAND] === true;
}
