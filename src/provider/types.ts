// The provider boundary: a provider-neutral conversation goes in, a stream of
// model events comes out. Nothing here knows about Cursor, Connect or Durable Objects.

export type ProviderKind = "openai-chat" | "openai-responses" | "anthropic";

/** One configured model, as the operator wrote it in BYOK_MODELS. */
export interface ModelConfig {
  /** The name Cursor shows and sends back as `model_id`. */
  name: string;
  provider: ProviderKind;
  baseUrl: string;
  apiKey: string;
  /** The provider's own model id. */
  model: string;
  contextWindow: number;
  maxOutputTokens?: number;
  reasoningEffort?: string;
  headers?: Record<string, string>;
  extraBody?: Record<string, unknown>;
  /** The provider's `service_tier` for Cursor's "fast" choice; without it, no fast choice is offered. */
  fastServiceTier?: string;
  /** A stream with no bytes for this long is an error (default 120 s; slow local models need more). */
  stallTimeoutMs?: number;
  /** Waiting between the retries of one provider call, all together (default 60 s; docs/providers.md#what-every-provider-gets). */
  retryBudgetMs?: number;
  /** False when the model cannot take images: each image then goes as a short note (docs/providers.md#images). */
  vision?: boolean;
  /** True: the model is offered Codex's `exec` and `wait` tools (docs/code-mode.md#cursor-runs). */
  codeMode?: boolean;
  /**
   * Models a call moves on to, in order, when this one fails before anything of its answer
   * streamed in a way retrying it would not fix soon (docs/providers.md#fallbacks). Each is a whole
   * model of the caller's own, without fallbacks of its own (no chains).
   */
  fallbacks?: ModelConfig[];
  /** The model that writes this one's conversation summaries (docs/providers.md#roles); absent: this one. */
  compactionModel?: ModelConfig;
  /** For a model with `vision: false`: the model that describes each image in its place (docs/providers.md#images-for-text-only-models). */
  imageModel?: ModelConfig;
  /** The name of the model its subagents run on when the Task and the client choose none (docs/providers.md#roles). */
  subagentModel?: string;
  /**
   * Set when the model has more keys than its own (docs/providers.md#keys-behind-one-model): each
   * call picks one of them, by weight, skipping those cooling down or broken; its own key is
   * among them unless a request cannot open it (a sealed personal key), which may leave one.
   */
  keys?: ModelKeys;
  /** The key this call was given from `keys` (src/provider/model-keys.ts); absent: the model's own. */
  keyId?: string;
  /** That key was marked broken and is being tried again: the call reports how it went. */
  keyOnProbation?: true;
  /**
   * A hosted model's key, still encrypted (docs/hosting.md#models-per-user): `apiKey` is empty
   * until it is opened just before the provider call (src/hosting/keys/stored-key.ts).
   */
  storedKey?: StoredKey;
}

/** The keys behind one model, and the pool whose spread and cool-downs they share. */
export interface ModelKeys {
  /** One per model and owner: `model:<id>` for a stored model, `byok:<name>` for a BYOK_MODELS entry. */
  pool: string;
  keys: ModelKey[];
}

/** One key behind a model: what it replaces of the model for the calls it makes. */
export interface ModelKey {
  /** A stored credential's id, or a BYOK_MODELS key's label (`<model name>#<i>`, 0 its own). */
  id: string;
  /** Its share of the calls, relative to the others' (at least 1). */
  weight: number;
  /** Changes whenever the key is written again: a broken mark holds only for the version it was seen on. */
  version: string;
  baseUrl: string;
  apiKey: string;
  headers?: Record<string, string>;
  storedKey?: StoredKey;
}

/** Ciphertext only: the credential's key envelope and its team's wrapped data key. */
interface StoredKey {
  teamId: string;
  credentialId: string;
  /** The credential's `updated_at_ms`: a broken mark holds until it changes (docs/providers.md#keys-behind-one-model). */
  credentialUpdatedAtMs: number;
  encryptedKey: string;
  wrappedDataKey: string;
  /** During a data-key rotation: the key being replaced, which rows not yet re-encrypted still need. */
  previousWrappedDataKey?: string;
  /**
   * Set when the credential's or the model's headers are sealed: `headers` is then left out and
   * built from these, credential's first, just before the call. Each is sealed text, or the plain
   * object of a row written before headers were sealed.
   */
  headers?: { modelId: string; credential: SealedOrPlain; model: SealedOrPlain };
  /**
   * Set for a personal credential sealed to its owner: the id of the personal key its key and
   * headers are under. The key itself (`personalKey`) is attached per request, only when the
   * request's own secret opened it (docs/keys-at-rest.md#personal-keys).
   */
  personalKeyId?: string;
  personalKey?: { readonly id: Uint8Array; readonly key: CryptoKey; readonly idText: string };
}

type SealedOrPlain = string | Record<string, string> | null;

export interface ToolCallPart {
  id: string;
  name: string;
  /** The arguments exactly as the model produced them (JSON text; a custom call's raw input). */
  arguments: string;
  /** A call of a freeform tool as a Responses custom tool: `arguments` is its raw input, not JSON. */
  custom?: true;
}

/** An image as the providers take it: PNG, JPEG, GIF or WebP bytes in standard base64. */
export interface ImagePart {
  mimeType: string;
  data: string;
}

/**
 * History entries. They are stored as JSON and replayed unchanged, so the
 * provider request prefix stays byte-identical from turn to turn.
 */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string; images?: ImagePart[] }
  | {
      role: "assistant";
      content: string;
      /** Reasoning text, replayed to providers that require it (DeepSeek, Kimi). */
      reasoning?: string;
      toolCalls?: ToolCallPart[];
      /** Opaque provider state to replay (signatures, encrypted reasoning). */
      replay?: ProviderReplay;
    }
  /** `images`: what the tool returned besides text (a Read of an image file, an MCP tool's image content). */
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean; images?: ImagePart[] };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /**
   * A freeform variant: providers with custom tools (OpenAI Responses) offer the tool with
   * this grammar and take raw text input; the others offer it as a function with `parameters`.
   */
  freeform?: { syntax: "lark"; definition: string };
}

export interface ModelRequest {
  model: ModelConfig;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  signal: AbortSignal;
  /** Stable key that lets providers route repeated prefixes to the same cache. */
  cacheKey?: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

/** What a call the provider accepted (HTTP 2xx) counts; `estimated` when the provider reported no usage. */
export interface CountedUsage {
  usage: Usage;
  estimated: boolean;
}

/** `refusal`: the model declined (docs/providers.md#refusals); no tool call of that answer may run. */
export type FinishReason = "stop" | "tool_use" | "length" | "refusal";

export type ModelEvent =
  /** `responseModel`: the model the provider says answered (its response's `model`), when it says. */
  | { kind: "start"; modelCallId: string; responseModel?: string }
  | { kind: "text_delta"; text: string }
  | { kind: "thinking_delta"; text: string }
  | { kind: "thinking_end" }
  | { kind: "tool_call_start"; index: number; callId: string; name: string; custom?: true }
  | { kind: "tool_call_delta"; index: number; delta: string }
  | { kind: "tool_call_end"; index: number }
  | { kind: "usage"; usage: Usage }
  /**
   * Provider state that must go back on later requests (Anthropic thinking
   * signatures, Responses reasoning items); stored on the assistant message.
   */
  | { kind: "replay"; value: ProviderReplay }
  | { kind: "done"; finish: FinishReason };

/** Opaque per-provider state replayed with an assistant message; ignored by other providers. */
export interface ProviderReplay {
  provider: ProviderKind;
  /** JSON-serialisable; each provider reads only its own. */
  data: unknown;
}

/** `context_overflow` is a request failure because the prompt does not fit the context window. */
export type ProviderFailureKind = "rate_limit" | "authorization" | "transient" | "request" | "context_overflow";

/** What a provider call measured, reported once the stream ends (for llm_calls rows). */
export interface CallTimings {
  httpStatus?: number;
  /** ms from sending the request to the response headers. */
  ttfbMs?: number;
  /** What the call counts (docs/hosting.md#limits): set once a call the provider accepted ends, however; absent for one it refused. */
  counted?: CountedUsage;
}

export interface Provider {
  /**
   * Streams one model call. Throws ProviderError for classified failures; aborts
   * with the signal's reason when it fires.
   */
  stream(request: ModelRequest, timings?: CallTimings): AsyncIterable<ModelEvent>;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}
