// What a run's spans say, by the OpenTelemetry GenAI conventions (docs/telemetry.md#traces):
// names, kinds and attributes of the invoke_agent, chat and execute_tool spans. Ids, models,
// counts and kinds only: never a prompt, an answer, a tool's arguments or its result.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_SERVER_ADDRESS,
  ATTR_USER_ID,
} from "@opentelemetry/semantic-conventions/incubating";
import { isProviderError } from "../../provider/failure.ts";
import { keyIdOf } from "../../provider/model-keys.ts";
import type { ModelConfig, ProviderKind, Usage } from "../../provider/types.ts";

/** Who and what a run is, on its invoke_agent span; the run's request id ties the trace to its logs. */
export interface RunIdentity {
  runId: string;
  requestId: string;
  conversationId: string;
  principal: string;
  teamId: string | null;
  model: ModelConfig;
  subagent: boolean;
}

/** The provider as the conventions name it: the API's maker (a gateway speaking OpenAI's API shows as openai). */
function providerName(kind: ProviderKind): string {
  return kind === "anthropic" ? "anthropic" : "openai";
}

export function runSpanName(run: RunIdentity): string {
  return `invoke_agent ${agentName(run)}`;
}

function agentName(run: RunIdentity): string {
  return run.subagent ? "cursor-subagent" : "cursor-agent";
}

export function runAttributes(run: RunIdentity): Attributes {
  return {
    [ATTR_GEN_AI_OPERATION_NAME]: "invoke_agent",
    [ATTR_GEN_AI_AGENT_NAME]: agentName(run),
    [ATTR_GEN_AI_PROVIDER_NAME]: providerName(run.model.provider),
    [ATTR_GEN_AI_REQUEST_MODEL]: run.model.model,
    [ATTR_GEN_AI_CONVERSATION_ID]: run.conversationId,
    [ATTR_USER_ID]: run.principal,
    ...(run.teamId && { "byok.team.id": run.teamId }),
    "byok.request.id": run.requestId,
    "byok.run.id": run.runId,
    "byok.model.name": run.model.name,
  };
}

/** One provider attempt: the model and key it used. */
export function chatAttributes(model: ModelConfig, conversationId: string, attempt: number): Attributes {
  const credential = keyIdOf(model);
  return {
    [ATTR_GEN_AI_OPERATION_NAME]: "chat",
    [ATTR_GEN_AI_PROVIDER_NAME]: providerName(model.provider),
    [ATTR_GEN_AI_REQUEST_MODEL]: model.model,
    [ATTR_GEN_AI_CONVERSATION_ID]: conversationId,
    [ATTR_SERVER_ADDRESS]: hostOf(model.baseUrl),
    "byok.provider.api": model.provider,
    "byok.model.name": model.name,
    "byok.attempt": attempt,
    ...(credential && { "byok.credential.id": credential }),
  };
}

export function chatSpanName(model: ModelConfig): string {
  return `chat ${model.model}`;
}

/** What a call counted (a call the provider refused counts nothing). */
export function usageAttributes(usage: Usage): Attributes {
  return {
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cacheReadTokens,
  };
}

/** `responseModel`: what the provider said answered; else the model asked for. */
export function answeredAttributes(model: ModelConfig, finish: string, responseModel: string | undefined): Attributes {
  return { [ATTR_GEN_AI_RESPONSE_MODEL]: responseModel ?? model.model, [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [finish] };
}

/**
 * A failure's `error.type`: a provider failure's kind (rate_limit, authorization, transient,
 * request, context_overflow), "cancelled", or an error's Connect code; never its message.
 */
export function errorTypeOf(err: unknown, aborted: boolean): string {
  if (aborted) return "cancelled";
  if (isProviderError(err)) return err.kind;
  // The Connect code as the wire spells it: resource_exhausted, failed_precondition, …
  if (err instanceof ConnectError) return (Code[err.code] ?? "_OTHER").replace(/(?<=[a-z])(?=[A-Z])/g, "_").toLowerCase();
  return "_OTHER";
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
