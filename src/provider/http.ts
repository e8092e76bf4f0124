// The HTTP part every provider shares: one streaming POST (network failures
// classified without their text, timings recorded, the wait for the answer bounded
// by the stall timeout) and the classification of a non-2xx answer from a bounded
// read of its body.
import { endpointUrl } from "./endpoint.ts";
import { classifyHttpFailure, ProviderError, providerErrorFromNetwork } from "./failure.ts";
import type { CallTimings, ModelConfig } from "./types.ts";
import { usageSafeHeaders } from "./usage-keys.ts";
import { headersStallError, stallTimeoutOf, type WatchdogOptions } from "./watchdog.ts";

/** Enough of an error body to find the provider's message; the rest is discarded. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

export interface StreamingPost {
  model: ModelConfig;
  /** Path under the model's base URL, e.g. "/chat/completions". */
  path: string;
  /** Authentication and protocol headers; the operator's headers are added after them. */
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  timings: CallTimings | undefined;
  /** The stall timeout also bounds the connect and the wait for the response headers (docs/providers.md#what-every-provider-gets). */
  watchdog?: WatchdogOptions;
}

/** Sends the request and returns the response, or throws a classified failure. */
export async function postStreaming(post: StreamingPost): Promise<Response> {
  const { model, signal } = post;
  const url = endpointUrl(model.baseUrl, post.path);
  const timeoutMs = stallTimeoutOf(post.watchdog);
  // Aborted when the provider says nothing for the stall timeout; the run's own signal still aborts it too.
  const stalled = new AbortController();
  const timer = setTimeout(() => stalled.abort(headersStallError(timeoutMs)), timeoutMs);
  try {
    return await send(url, post, AbortSignal.any([signal, stalled.signal]));
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (stalled.signal.aborted) throw stalled.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer); // the body's own silences are the stream watchdog's (watchdog.ts)
  }
}

async function send(url: string, post: StreamingPost, signal: AbortSignal): Promise<Response> {
  const { model, timings } = post;
  const sentAt = Date.now();
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { ...post.headers, "content-type": "application/json", accept: "text/event-stream", ...usageSafeHeaders(model.headers) },
      body: post.body,
      signal,
      // A redirect could lead past the upstream address check, with the key.
      redirect: "manual",
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw providerErrorFromNetwork(error);
  }
  if (timings) {
    timings.httpStatus = response.status;
    timings.ttfbMs = Date.now() - sentAt;
  }
  if (response.status >= 300 && response.status < 400) {
    throw new ProviderError("request", `provider answered with a redirect (HTTP ${response.status}); configure the final base_url`, {
      status: response.status,
    });
  }
  if (!response.ok) throw await failureFromResponse(response, signal, secretsOf(model));
  if (!response.body) throw new ProviderError("transient", "provider returned an empty response");
  return response;
}

/** What of a model's configuration must never appear in an error: the key and every custom header's value (docs/providers.md#what-every-provider-gets). */
export function secretsOf(model: ModelConfig): string[] {
  return [model.apiKey, ...Object.values(model.headers ?? {})];
}

async function failureFromResponse(response: Response, signal: AbortSignal, secrets: string[]): Promise<ProviderError> {
  let bodyText = "";
  try {
    bodyText = await readBoundedText(response.body, ERROR_BODY_MAX_BYTES);
  } catch {
    if (signal.aborted) throw signal.reason;
    // The status alone still classifies the failure.
  }
  return classifyHttpFailure(response.status, response.headers, bodyText, secrets);
}

async function readBoundedText(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, maxBytes - bytes);
      bytes += part.byteLength;
      text += decoder.decode(part, { stream: true });
    }
    return text + decoder.decode();
  } finally {
    void reader.cancel().catch(() => undefined); // the rest of the body is not needed
  }
}
