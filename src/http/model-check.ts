// "Test this model": one small request that measures time to first token and
// tokens per second, or shows the provider's error (already redacted).
import { z } from "zod";
import type { ModelCatalog } from "../config/models.ts";
import { withOpenedKey } from "../config/stored-key.ts";
import type { KekEnv } from "../crypto/kek.ts";
import { AppError } from "../proto/connect/error.ts";
import { createProvider } from "../provider/index.ts";
import { ProviderError } from "../provider/failure.ts";
import type { CallTimings, ModelConfig } from "../provider/types.ts";

const CHECK_PROMPT = "Reply with the single word OK.";
/** A check never waits longer than this for the provider. */
const CHECK_TIMEOUT_MS = 60_000;

const bodySchema = z.object({ prompt: z.string().min(1).max(4_000).optional() }).optional();

export interface ModelCheckResult {
  model: string;
  ok: boolean;
  ttfbMs?: number;
  ttftMs?: number;
  durationMs: number;
  outputTokens?: number;
  tokensPerSecond?: number;
  text?: string;
  error?: { kind: string; status?: number; message: string };
}

/** Checks one of the caller's models (its catalogue: src/config/principal-models.ts). */
export async function checkModel(env: KekEnv, catalog: ModelCatalog, name: string, rawBody: unknown): Promise<ModelCheckResult> {
  const model = catalog.models.find((m) => m.name === name);
  if (!model) {
    const problem = catalog.problems.get(name);
    throw problem ? new AppError("failed_precondition", problem) : new AppError("not_found", `model "${name}" is not configured`);
  }
  const parsed = bodySchema.safeParse(rawBody);
  if (!parsed.success) throw new AppError("invalid_argument", 'the body must be {} or {"prompt": "…"}');
  return probeModel(await withOpenedKey(env, model), parsed.data?.prompt ?? CHECK_PROMPT);
}

/** One small request to a model whose key is open (also the admin API's model test). */
export async function probeModel(model: ModelConfig, prompt = CHECK_PROMPT): Promise<ModelCheckResult> {
  const started = Date.now();
  const timings: CallTimings = {};
  let ttftMs: number | undefined;
  let text = "";
  let outputTokens: number | undefined;
  const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  try {
    const stream = createProvider(model.provider, model.stallTimeoutMs ? { stallTimeoutMs: model.stallTimeoutMs } : {}).stream(
      {
        model: { ...model, maxOutputTokens: Math.min(model.maxOutputTokens ?? 64, 64) },
        messages: [{ role: "user", content: prompt }],
        tools: [],
        signal,
      },
      timings,
    );
    for await (const event of stream) {
      if ((event.kind === "text_delta" || event.kind === "thinking_delta") && ttftMs === undefined) ttftMs = Date.now() - started;
      if (event.kind === "text_delta") text += event.text;
      if (event.kind === "usage") outputTokens = event.usage.outputTokens;
    }
    const durationMs = Date.now() - started;
    const generatingMs = durationMs - (ttftMs ?? durationMs);
    return {
      model: model.name,
      ok: true,
      ...(timings.ttfbMs !== undefined && { ttfbMs: timings.ttfbMs }),
      ...(ttftMs !== undefined && { ttftMs }),
      durationMs,
      ...(outputTokens !== undefined && { outputTokens }),
      ...(outputTokens !== undefined &&
        generatingMs > 0 && { tokensPerSecond: Math.round((outputTokens / generatingMs) * 1000 * 10) / 10 }),
      text: text.slice(0, 200),
    };
  } catch (err) {
    const failure =
      err instanceof ProviderError
        ? { kind: err.kind, ...(err.status !== undefined && { status: err.status }), message: err.message }
        : signal.aborted
          ? { kind: "timeout", message: `no answer within ${CHECK_TIMEOUT_MS / 1000} s` }
          : { kind: "internal", message: "the check failed" };
    return { model: model.name, ok: false, durationMs: Date.now() - started, error: failure };
  }
}
