// The provider layer's entry point: pick a provider by kind. Failure
// classification and retry pacing are in failure.ts and retry.ts.
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

export * from "./types.ts";
