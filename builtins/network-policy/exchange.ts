// One HTTP exchange over undici's dispatcher, with a handler that knows whether the request reached the socket: every
// failure says `sent` truthfully (false until undici is about to write the request, true from then on). Redirects
// and oversized bodies abort the exchange; request headers and body are never put in a message.
import type { Dispatcher } from 'undici';
import { NetworkFailure, type HttpRequest, type HttpResponse } from '@agentctl/sdk';

export interface ExchangeOptions {
  readonly url: URL;
  /** Host and port as the messages name them. */
  readonly target: string;
  readonly cap: number;
  readonly timeoutMs: number;
  /** Aborts when the caller cancels or the whole exchange's time is up. */
  readonly stop: AbortSignal;
  /** Builds the failure for `stop`, knowing whether the request was sent. */
  readonly stopped: (sent: boolean) => NetworkFailure;
}

type Headers = Record<string, string | string[] | undefined>;

function flatten(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}

function redirect(options: ExchangeOptions, status: number, headers: Headers): NetworkFailure {
  const location = headers.location;
  let where = 'without a Location';
  if (typeof location === 'string') {
    try {
      where = `to host ${new URL(location, options.url).host}`;
    } catch {
      where = 'to an unparsable Location';
    }
  }
  return new NetworkFailure('AGENTCTL_E_NETWORK_REDIRECT', `${options.target} answered ${status}, a redirect ${where}; redirects are never followed`, true);
}

const tooLarge = (options: ExchangeOptions) =>
  new NetworkFailure('AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE', `the response of ${options.target} is larger than ${options.cap} bytes`, true);

/** What an error undici reports means, given whether the request was handed to the socket. */
function classify(options: ExchangeOptions, error: Error, sent: boolean): NetworkFailure {
  const code = (error as NodeJS.ErrnoException).code ?? error.name;
  if (!sent && code === 'UND_ERR_INVALID_ARG') {
    // undici validates headers and body before writing; its message may quote a header, so only the code is kept.
    return new NetworkFailure('AGENTCTL_E_NETWORK_FAILED', `the request to ${options.target} is invalid and was not sent (${code})`, false);
  }
  if (!sent) {
    const detail = error.message && !(error instanceof AggregateError) ? `${code}: ${error.message}` : code;
    return new NetworkFailure('AGENTCTL_E_NETWORK_CONNECT', `could not connect to ${options.target} (${detail})`, false, { cause: error });
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new NetworkFailure('AGENTCTL_E_NETWORK_TIMEOUT', `${options.target} did not answer within ${options.timeoutMs} ms`, true);
  }
  return new NetworkFailure('AGENTCTL_E_NETWORK_FAILED', `the exchange with ${options.target} broke off after the request was sent (${code})`, true, { cause: error });
}

/** Sends `request` through `dispatcher` and collects the complete response, or rejects with a NetworkFailure. */
export function exchange(dispatcher: Dispatcher, request: HttpRequest, options: ExchangeOptions): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let sent = false;
    let settled: Error | undefined;
    let status = 0;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (error: Error | undefined, response?: HttpResponse) => {
      if (settled) return;
      settled = error ?? new Error('settled');
      options.stop.removeEventListener('abort', onStop);
      if (error) reject(error);
      else resolve(response!);
    };
    const fail = (error: NetworkFailure) => {
      finish(error);
      controller?.abort(error);
    };
    const onStop = () => fail(options.stopped(sent));
    if (options.stop.aborted) return reject(options.stopped(false));
    options.stop.addEventListener('abort', onStop, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        // Stopped while connecting: the request is dropped before a byte of it is written.
        if (settled) return started.abort(settled);
        sent = true;
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        if (statusCode < 200) return;
        if (statusCode >= 300 && statusCode < 400) return fail(redirect(options, statusCode, responseHeaders));
        // A HEAD answer announces the length of a body it does not carry.
        const length = request.method === 'HEAD' ? 0 : Number(responseHeaders['content-length']);
        if (Number.isFinite(length) && length > options.cap) return fail(tooLarge(options));
        status = statusCode;
        headers = flatten(responseHeaders);
      },
      onResponseData(_controller, chunk) {
        size += chunk.length;
        if (size > options.cap) return fail(tooLarge(options));
        chunks.push(chunk);
      },
      onResponseEnd() {
        finish(undefined, { status, headers, body: Buffer.concat(chunks) });
      },
      onResponseError(_controller, error) {
        finish(classify(options, error, sent));
      },
    };
    dispatcher.dispatch(
      {
        origin: options.url.origin,
        path: `${options.url.pathname}${options.url.search}`,
        method: request.method,
        headers: request.headers ?? {},
        body: request.body ?? null,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      },
      handler,
    );
  });
}
