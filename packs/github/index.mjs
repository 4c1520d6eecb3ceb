// @ts-check
// agentctl-pack-github: two action kinds that each make one REST call to GitHub through the run's network client —
// github.comment (a comment on a pull request or issue) and github.check-run (a check run on a commit). Each call is
// one recorded effect that is never repeated on its own: a failure after the request was sent is uncertain.
import { definePlugin, EffectFailure, isNetworkFailure, secretReferenceSchema, z } from '@agentctl/sdk';

const VERSION = '0.1.0';
const USER_AGENT = `agentctl-pack-github/${VERSION}`;
const API_VERSION = '2022-11-28';
/** GitHub's answers here are small objects; a larger body is not what was asked for. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** How much of an API error message a diagnostic repeats. */
const MESSAGE_LIMIT = 300;
const PROFILE = /** @type {const} */ ({ effectClass: 'external_mutate', risk: 'medium', idempotency: 'at_most_once' });

const actionSchema = z.strictObject({
  /** The REST API root: https://api.github.com, or GitHub Enterprise Server's https://HOST/api/v3. */
  apiUrl: z
    .string()
    .max(2048)
    .refine((value) => /^https?:\/\/[^/?#]+(\/[^?#]*)?$/i.test(value), 'an http:// or https:// URL without a query')
    .default('https://api.github.com'),
  /** The token, sent only as `Authorization: Bearer`. */
  token: secretReferenceSchema.default({ env: 'GITHUB_TOKEN' }),
  timeoutSeconds: z.number().int().min(1).max(600).default(30),
});

// Owner and repository names as GitHub allows them, so that neither can change the path of the request.
const owner = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'a GitHub user or organisation name');
const repo = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'a repository name').refine((name) => name !== '.' && name !== '..', 'a repository name');

const commentInput = z.strictObject({
  owner,
  repo,
  /** The pull request (or issue) number. */
  number: z.number().int().min(1),
  body: z.string().min(1).max(65536),
});

const CONCLUSIONS = /** @type {const} */ (['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'timed_out']);
const checkRunInput = z
  .strictObject({
    owner,
    repo,
    name: z.string().min(1).max(255),
    head_sha: z.string().regex(/^[0-9a-f]{40}$/, 'a full commit SHA (40 hexadecimal digits)'),
    status: z.enum(['queued', 'in_progress', 'completed']).optional(),
    conclusion: z.enum(CONCLUSIONS).optional(),
    details_url: z.string().url().max(2048).optional(),
    external_id: z.string().max(255).optional(),
    output: z.strictObject({ title: z.string().min(1).max(255), summary: z.string().min(1).max(65535), text: z.string().max(65535).optional() }).optional(),
  })
  .refine((input) => input.status !== 'completed' || input.conclusion !== undefined, { message: 'a completed check run needs a conclusion', path: ['conclusion'] })
  .refine((input) => input.conclusion === undefined || input.status === undefined || input.status === 'completed', { message: 'a conclusion completes the check run: leave status out or make it completed', path: ['status'] });

/**
 * @typedef {z.output<typeof actionSchema>} GithubAction
 * @typedef {import('@agentctl/sdk').DispatchContext<GithubAction, unknown>} Context
 */

/**
 * A typed action kind: the schemas decide the types `dispatch` sees.
 * @template {z.ZodType} A
 * @template {z.ZodType} I
 * @param {import('@agentctl/sdk').ActionKind<A, I>} kind
 */
const actionKind = (kind) => Object.freeze(kind);

/**
 * The API's own `message` (and its validation errors' messages), as one short line: the diagnostic says why GitHub
 * refused. Redacted, so a message that repeats the token shows `[REDACTED]`.
 * @param {Buffer} body
 * @param {Context} context
 */
function apiMessage(body, context) {
  let parsed;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return '';
  }
  if (typeof parsed !== 'object' || parsed === null) return '';
  const parts = typeof parsed.message === 'string' ? [parsed.message] : [];
  if (Array.isArray(parsed.errors)) {
    for (const item of parsed.errors) if (typeof item?.message === 'string') parts.push(item.message);
  }
  const line = parts.join('; ').replace(/[\u0000-\u001f\u007f]+/g, ' ');
  const cut = line.length > MESSAGE_LIMIT;
  const text = context.redact(cut ? line.slice(0, MESSAGE_LIMIT) : line, { truncated: cut });
  return cut ? `${text}…` : text;
}

/** Declared codes of the statuses GitHub documents for these endpoints. */
const STATUS_CODES = /** @type {Record<number, string>} */ ({
  401: 'AGENTCTL_PACK_GITHUB_E_UNAUTHORIZED',
  403: 'AGENTCTL_PACK_GITHUB_E_FORBIDDEN',
  404: 'AGENTCTL_PACK_GITHUB_E_NOT_FOUND',
  422: 'AGENTCTL_PACK_GITHUB_E_INVALID',
});

/**
 * Sends one POST under an effect and returns the created object's id and html_url.
 * @param {Context} context
 * @param {{ operation: string, path: string, body: Record<string, unknown> }} call
 */
async function create(context, call) {
  const { action } = context;
  const network = context.network;
  if (!network) throw new EffectFailure('failed', 'AGENTCTL_E_NETWORK_UNAVAILABLE', `${call.operation} got no network client: no plugin provides one`);
  const url = `${action.apiUrl.replace(/\/+$/, '')}${call.path}`;
  const where = `POST ${call.path}`;
  // The policy refuses the API host (scheme, port) before anything is recorded or sent.
  await network.check(url, context.signal);
  const body = JSON.stringify(call.body);
  const request = {
    operation: call.operation,
    // What is sent, except the token: the store redacts any other secret value.
    input: /** @type {import('@agentctl/sdk').JsonValue} */ (JSON.parse(JSON.stringify({ method: 'POST', url, body: call.body }))),
    access: { tool: call.operation },
    profile: PROFILE,
  };
  return context.effect(request, async (signal) => {
    let response;
    try {
      response = await network.request({
        url,
        method: 'POST',
        headers: {
          authorization: `Bearer ${context.secrets.value(action.token)}`,
          accept: 'application/vnd.github+json',
          'x-github-api-version': API_VERSION,
          'user-agent': USER_AGENT,
          'content-type': 'application/json',
        },
        body,
        timeoutMs: action.timeoutSeconds * 1000,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        signal,
      });
    } catch (error) {
      throw networkOutcome(error, where);
    }
    if (response.status < 200 || response.status >= 300) {
      const message = apiMessage(response.body, context);
      const code = STATUS_CODES[response.status] ?? 'AGENTCTL_PACK_GITHUB_E_STATUS';
      throw new EffectFailure('failed', code, `GitHub answered ${response.status} to ${where}${message ? `: ${message}` : ''}`, { details: { status: response.status } });
    }
    let created;
    try {
      created = JSON.parse(response.body.toString('utf8'));
    } catch {
      created = undefined;
    }
    if (typeof created?.id !== 'number' || typeof created?.html_url !== 'string') {
      // GitHub said it created the object, but its answer cannot be used: the object probably exists.
      throw new EffectFailure('uncertain', 'AGENTCTL_PACK_GITHUB_E_UNCERTAIN', `GitHub answered ${response.status} to ${where} without the created object's id and html_url; it was probably created`);
    }
    return { id: created.id, html_url: created.html_url };
  });
}

/**
 * What the network client threw, as an effect outcome: nothing sent (or a redirect) is a definite failure; anything
 * after the POST was sent may have created the object, so it is uncertain and never sent again without an operator.
 * @param {unknown} error
 * @param {string} where
 */
function networkOutcome(error, where) {
  if (isNetworkFailure(error) && (!error.sent || error.code === 'AGENTCTL_E_NETWORK_REDIRECT')) return new EffectFailure('failed', error.code, `${where}: ${error.message}`, { cause: error });
  const why = isNetworkFailure(error) ? `${error.message} [${error.code}]` : 'the exchange broke off';
  return new EffectFailure('uncertain', 'AGENTCTL_PACK_GITHUB_E_UNCERTAIN', `${where}: ${why}; GitHub may have acted on it, so it is not sent again`, { cause: error });
}

export const comment = actionKind({
  name: 'github.comment',
  description: 'Comments on a pull request or issue: {owner, repo, number, body} in, {id, html_url} out.',
  actionSchema,
  inputSchema: commentInput,
  effect: PROFILE,
  usesNetwork: true,
  // What check and plan judge by policy: the one call, with the access dispatch gives it.
  describe: () => ({ effects: [{ operation: 'github.comment', access: { tool: 'github.comment' } }] }),
  secretReferences: (action) => [action.token],
  dispatch: (context) => {
    const { owner, repo, number, body } = context.input;
    return create(context, { operation: 'github.comment', path: `/repos/${owner}/${repo}/issues/${number}/comments`, body: { body } });
  },
});

export const checkRun = actionKind({
  name: 'github.check-run',
  description: 'Creates a check run on a commit: {owner, repo, name, head_sha, status, conclusion, output} in, {id, html_url} out.',
  actionSchema,
  inputSchema: checkRunInput,
  effect: PROFILE,
  usesNetwork: true,
  // What check and plan judge by policy: the one call, with the access dispatch gives it.
  describe: () => ({ effects: [{ operation: 'github.check-run', access: { tool: 'github.check-run' } }] }),
  secretReferences: (action) => [action.token],
  dispatch: (context) => {
    const { owner, repo, ...fields } = context.input;
    return create(context, { operation: 'github.check-run', path: `/repos/${owner}/${repo}/check-runs`, body: fields });
  },
});

export const github = definePlugin({
  name: 'agentctl-pack-github',
  version: VERSION,
  hostRange: '^0.1.0',
  description: 'GitHub REST calls as recorded effects: github.comment and github.check-run.',
  errorCodes: {
    AGENTCTL_PACK_GITHUB_E_UNAUTHORIZED: { exitCode: 6, description: 'GitHub answered 401: the token is missing, wrong or expired.' },
    AGENTCTL_PACK_GITHUB_E_FORBIDDEN: { exitCode: 6, description: 'GitHub answered 403: the token lacks a permission, or a rate limit was hit.' },
    AGENTCTL_PACK_GITHUB_E_NOT_FOUND: { exitCode: 4, description: 'GitHub answered 404: no such repository, pull request or commit (or the token cannot see it).' },
    AGENTCTL_PACK_GITHUB_E_INVALID: { exitCode: 4, description: 'GitHub answered 422: the request was understood but refused (validation failed).' },
    AGENTCTL_PACK_GITHUB_E_STATUS: { exitCode: 6, description: 'GitHub answered with another status that is not 2xx.' },
    AGENTCTL_PACK_GITHUB_E_UNCERTAIN: { exitCode: 6, description: 'The POST may have reached GitHub, but its outcome is unknown: it is not sent again.' },
  },
  setup(api) {
    api.registerActionKind(comment);
    api.registerActionKind(checkRun);
  },
});

export default github;
