// The HTTP part every provider shares: one streaming POST (network failures
// classified without their text, timings recorded) and the classification of
// a non-2xx answer from a bounded read of its body.
import { classifyHttpFailure, ProviderError, providerErrorFromNetwork } from "./failure.ts";
import type { CallTimings, ModelConfig } from "./types.ts";

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
}

/** Sends the request and returns the response, or throws a classified failure. */
export async function postStreaming(post: StreamingPost): Promise<Response> {
  const { model, signal, timings } = post;
  const url = `${model.baseUrl.replace(/\/+$/, "")}${post.path}`;
  const sentAt = Date.now();
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { ...post.headers, "content-type": "application/json", accept: "text/event-stream", ...model.headers },
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

/** What of a model's configuration must never appear in an error: the key and credential-like headers. */
export function secretsOf(model: ModelConfig): string[] {
  const credentials = Object.entries(model.headers ?? {}).filter(([name]) => /auth|key|token|secret|cookie/i.test(name));
  return [model.apiKey, ...credentials.map(([, value]) => value)];
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
