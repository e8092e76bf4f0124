// The provider layer's entry point: pick a provider by kind, plus what callers
// need to classify failures and pace retries.
import { createAnthropicProvider } from "./anthropic.ts";
import { ProviderError } from "./failure.ts";
import { createOpenAiChatProvider } from "./openai-chat.ts";
import { createOpenAiResponsesProvider } from "./openai-responses.ts";
import type { Provider, ProviderKind } from "./types.ts";
import type { WatchdogOptions } from "./watchdog.ts";

export type ProviderOptions = WatchdogOptions;

export function createProvider(kind: ProviderKind, options: ProviderOptions = {}): Provider {
  switch (kind) {
    case "openai-chat":
      return createOpenAiChatProvider(options);
    case "anthropic":
      return createAnthropicProvider(options);
    case "openai-responses":
      return createOpenAiResponsesProvider(options);
    default:
      throw new ProviderError("request", `provider ${kind} is not supported yet`);
  }
}

export {
  classifyHttpFailure,
  classifyStreamError,
  isProviderError,
  ProviderError,
  parseRetryAfterMs,
  providerErrorFromNetwork,
} from "./failure.ts";
export { isRetryable, RETRY_AFTER_MAX_MS, RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS, retryDelayMs, sleepUnlessAborted } from "./retry.ts";
export * from "./types.ts";
export { STALL_TIMEOUT_MS, type WatchdogOptions } from "./watchdog.ts";
