// The provider layer's entry point: pick a provider by kind, plus what callers
// need to classify failures and pace retries.
import { ANTHROPIC_API } from "./anthropic.ts";
import { ProviderError } from "./failure.ts";
import { OPENAI_CHAT_API } from "./openai-chat.ts";
import { OPENAI_RESPONSES_API } from "./openai-responses.ts";
import { createStreamingProvider, type WireApi } from "./stream-loop.ts";
import type { Provider, ProviderKind } from "./types.ts";
import type { WatchdogOptions } from "./watchdog.ts";

export type ProviderOptions = WatchdogOptions;

export function createProvider(kind: ProviderKind, options: ProviderOptions = {}): Provider {
  return createStreamingProvider(wireApiOf(kind), options);
}

function wireApiOf(kind: ProviderKind): WireApi {
  switch (kind) {
    case "openai-chat":
      return OPENAI_CHAT_API;
    case "anthropic":
      return ANTHROPIC_API;
    case "openai-responses":
      return OPENAI_RESPONSES_API;
    default:
      throw new ProviderError("request", `provider ${kind} is not supported yet`);
  }
}

export { classifyHttpFailure, ProviderError, providerErrorFromNetwork } from "./failure.ts";
export { isRetryable, RETRY_AFTER_MAX_MS, RETRY_MAX_DELAY_MS, retryDelayMs, sleepUnlessAborted } from "./retry.ts";
export * from "./types.ts";
