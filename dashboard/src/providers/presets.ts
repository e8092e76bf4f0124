// The providers the Credentials page offers from a list (docs/providers.md#presets): each
// fills the provider kind and base URL and says what its key looks like. Data only, so the
// unit tests check every base URL against the server's own upstream URL rules.
import type { ProviderKind } from "../types.ts";

/** A part of a base URL the user names, written `{name}` in the template (Azure's resource and deployment). */
interface Placeholder {
  name: string;
  label: string;
  hint: string;
}

export interface ProviderPreset {
  id: string;
  label: string;
  provider: ProviderKind;
  /** The base URL, with `{name}` for each placeholder. */
  baseUrl: string;
  placeholders?: readonly Placeholder[];
  /** What the key looks like, or that the server checks none. */
  keyHint: string;
  /** False for a server that checks no key by default: the key field may stay empty (no key header is sent). */
  keyNeeded: boolean;
  /** Where the key, or the server's OpenAI-compatible API, is documented. */
  docs: string;
  /** A server on this machine: a loopback base URL, which only BYOK_ALLOW_PRIVATE_UPSTREAMS=true allows. */
  local?: boolean;
  /** Its models take no images unless you know otherwise: the model form then clears "Takes images". */
  textOnly?: boolean;
  /** Upstream model ids the model form suggests for a credential of this preset. */
  models?: readonly string[];
}

const LOCAL_KEY = "checks no key unless started with one: leave it empty and none is sent.";

export const PRESETS: readonly ProviderPreset[] = [
  {
    id: "openai",
    label: "OpenAI",
    provider: "openai-responses",
    baseUrl: "https://api.openai.com/v1",
    keyHint: "Starts with sk- (project keys: sk-proj-…).",
    keyNeeded: true,
    docs: "https://platform.openai.com/api-keys",
    models: ["gpt-5.1", "gpt-5-mini", "gpt-4.1"],
  },
  {
    id: "anthropic",
    label: "Anthropic",
    provider: "anthropic",
    baseUrl: "https://api.anthropic.com/v1",
    keyHint: "Starts with sk-ant- (sk-ant-api03-…).",
    keyNeeded: true,
    docs: "https://console.anthropic.com/settings/keys",
    models: ["claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5"],
  },
  {
    id: "openrouter",
    label: "OpenRouter",
    provider: "openai-chat",
    baseUrl: "https://openrouter.ai/api/v1",
    keyHint: "Starts with sk-or-v1-.",
    keyNeeded: true,
    docs: "https://openrouter.ai/settings/keys",
    models: ["anthropic/claude-sonnet-4.5", "openai/gpt-5.1", "deepseek/deepseek-chat-v3.1"],
  },
  {
    id: "deepseek",
    label: "DeepSeek",
    provider: "openai-chat",
    baseUrl: "https://api.deepseek.com",
    keyHint: "Starts with sk-.",
    keyNeeded: true,
    docs: "https://platform.deepseek.com/api_keys",
    textOnly: true,
    models: ["deepseek-chat", "deepseek-reasoner"],
  },
  {
    id: "groq",
    label: "Groq",
    provider: "openai-chat",
    baseUrl: "https://api.groq.com/openai/v1",
    keyHint: "Starts with gsk_.",
    keyNeeded: true,
    docs: "https://console.groq.com/keys",
    models: ["openai/gpt-oss-120b", "moonshotai/kimi-k2-instruct", "llama-3.3-70b-versatile"],
  },
  {
    id: "mistral",
    label: "Mistral",
    provider: "openai-chat",
    baseUrl: "https://api.mistral.ai/v1",
    keyHint: "32 letters and digits, without a prefix.",
    keyNeeded: true,
    docs: "https://console.mistral.ai/api-keys",
    models: ["mistral-large-latest", "codestral-latest", "devstral-medium-latest"],
  },
  {
    id: "together",
    label: "Together AI",
    provider: "openai-chat",
    baseUrl: "https://api.together.xyz/v1",
    keyHint: "The key from Settings, API keys in your Together account.",
    keyNeeded: true,
    docs: "https://api.together.ai/settings/api-keys",
    models: ["meta-llama/Llama-3.3-70B-Instruct-Turbo", "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8"],
  },
  {
    id: "fireworks",
    label: "Fireworks AI",
    provider: "openai-chat",
    baseUrl: "https://api.fireworks.ai/inference/v1",
    keyHint: "Starts with fw_.",
    keyNeeded: true,
    docs: "https://app.fireworks.ai/settings/users/api-keys",
    models: ["accounts/fireworks/models/deepseek-v3p1", "accounts/fireworks/models/kimi-k2-instruct"],
  },
  {
    id: "xai",
    label: "xAI (Grok)",
    provider: "openai-chat",
    baseUrl: "https://api.x.ai/v1",
    keyHint: "Starts with xai-.",
    keyNeeded: true,
    docs: "https://console.x.ai",
    models: ["grok-4", "grok-code-fast-1"],
  },
  {
    id: "gemini",
    label: "Google Gemini (OpenAI-compatible endpoint)",
    provider: "openai-chat",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyHint: "Starts with AIza (a Google AI Studio key).",
    keyNeeded: true,
    docs: "https://aistudio.google.com/apikey",
    models: ["gemini-2.5-pro", "gemini-2.5-flash"],
  },
  {
    id: "azure",
    label: "Azure OpenAI (a deployment)",
    provider: "openai-chat",
    baseUrl: "https://{resource}.openai.azure.com/openai/deployments/{deployment}?api-version=2024-10-21",
    placeholders: [
      { name: "resource", label: "Azure resource name", hint: "The first part of its endpoint: https://NAME.openai.azure.com." },
      { name: "deployment", label: "Deployment name", hint: "As named under Deployments; Azure routes by it." },
    ],
    keyHint: "KEY 1 or KEY 2 from the resource's Keys and Endpoint page; sent as the api-key header.",
    keyNeeded: true,
    docs: "https://learn.microsoft.com/azure/ai-foundry/openai/reference",
    models: ["gpt-4o", "gpt-4.1", "gpt-5-mini"],
  },
  {
    id: "ollama",
    label: "Ollama (on this machine)",
    provider: "openai-chat",
    baseUrl: "http://127.0.0.1:11434/v1",
    keyHint: `Ollama ${LOCAL_KEY}`,
    keyNeeded: false,
    docs: "https://docs.ollama.com/api/openai-compatibility",
    local: true,
    textOnly: true,
    models: ["qwen3-coder:30b", "gpt-oss:20b"],
  },
  {
    id: "lmstudio",
    label: "LM Studio (on this machine)",
    provider: "openai-chat",
    baseUrl: "http://127.0.0.1:1234/v1",
    keyHint: `LM Studio ${LOCAL_KEY}`,
    keyNeeded: false,
    docs: "https://lmstudio.ai/docs/app/api/endpoints/openai",
    local: true,
    textOnly: true,
  },
  {
    id: "llamacpp",
    label: "llama.cpp server (on this machine)",
    provider: "openai-chat",
    baseUrl: "http://127.0.0.1:8080/v1",
    keyHint: `llama-server ${LOCAL_KEY} (--api-key)`,
    keyNeeded: false,
    docs: "https://github.com/ggml-org/llama.cpp/tree/master/tools/server",
    local: true,
    textOnly: true,
  },
  {
    id: "vllm",
    label: "vLLM (on this machine)",
    provider: "openai-chat",
    baseUrl: "http://127.0.0.1:8000/v1",
    keyHint: `vLLM ${LOCAL_KEY} (--api-key)`,
    keyNeeded: false,
    docs: "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
    local: true,
    textOnly: true,
  },
];

export function presetById(id: string): ProviderPreset | undefined {
  return PRESETS.find((p) => p.id === id);
}

/** The preset's base URL with each `{name}` replaced by its value; a placeholder without a value stays as written. */
export function baseUrlOf(preset: ProviderPreset, values: Readonly<Record<string, string>>): string {
  return preset.baseUrl.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name]?.trim();
    return value ? encodeURIComponent(value) : whole;
  });
}

/** The first `{name}` still in a base URL, for a message that says what to fill in. */
export function unfilledPlaceholder(baseUrl: string): string | undefined {
  return /\{(\w+)\}/.exec(baseUrl)?.[1];
}

const trimmed = (url: string) => url.replace(/\/+$/, "");

/**
 * The preset a stored credential was most likely made from, by its base URL: the same URL, else
 * the same host (and port), else an Azure OpenAI host. Used to suggest models and their defaults.
 */
export function presetOfBaseUrl(baseUrl: string): ProviderPreset | undefined {
  const exact = PRESETS.find((p) => !p.placeholders && trimmed(p.baseUrl) === trimmed(baseUrl));
  if (exact) return exact;
  let host: string;
  try {
    host = new URL(baseUrl).host;
  } catch {
    return undefined;
  }
  if (/\.openai\.azure\.com$/i.test(host)) return presetById("azure");
  return PRESETS.find((p) => !p.placeholders && new URL(p.baseUrl).host === host);
}
