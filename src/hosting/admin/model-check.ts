// "Test this model": one small request that measures time to first token and
// tokens per second, or shows the provider's error (already redacted).
import { z } from "zod";
import type { ModelCatalog } from "../config/byok-models.ts";
import { withOpenedKey } from "../keys/stored-key.ts";
import type { KekEnv } from "../keys/kek.ts";
import type { PrincipalLimits } from "../limits/principal-limits.ts";
import { AppError } from "../../core/errors.ts";
import { createProvider } from "../../provider/index.ts";
import { ProviderError } from "../../provider/failure.ts";
import type { CallTimings, ModelConfig, Provider } from "../../provider/types.ts";

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

/**
 * Checks one of the caller's models (its catalogue: src/hosting/config/principal-models.ts). A hosted
 * user's check is a run for their limits and its call is counted in the team's budget.
 */
export async function checkModel(
  env: KekEnv,
  catalog: ModelCatalog,
  name: string,
  rawBody: unknown,
  limits?: PrincipalLimits,
): Promise<ModelCheckResult> {
  const model = catalog.models.find((m) => m.name === name);
  if (!model) {
    const problem = catalog.problems.get(name);
    throw problem ? new AppError("failed_precondition", problem) : new AppError("not_found", `model "${name}" is not configured`);
  }
  const parsed = bodySchema.safeParse(rawBody);
  if (!parsed.success) throw new AppError("invalid_argument", 'the body must be {} or {"prompt": "…"}');
  return probeModel(await withOpenedKey(env, model), parsed.data?.prompt ?? CHECK_PROMPT, limits);
}

/**
 * One small request to a model whose key is open (also the admin API's model test). With
 * `limits`, the check is a run for the user's limits and its call counts in the team's budget.
 */
export async function probeModel(model: ModelConfig, prompt = CHECK_PROMPT, limits?: PrincipalLimits): Promise<ModelCheckResult> {
  if (!limits) return probe(model, prompt, (provider) => provider);
  const checkId = `check:${crypto.randomUUID()}`;
  await limits.admit(checkId);
  try {
    return await probe(model, prompt, (provider) => limits.guard(provider));
  } finally {
    await limits.release(checkId);
  }
}

async function probe(model: ModelConfig, prompt: string, guard: (provider: Provider) => Provider): Promise<ModelCheckResult> {
  const started = Date.now();
  const timings: CallTimings = {};
  let ttftMs: number | undefined;
  let text = "";
  let outputTokens: number | undefined;
  const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  try {
    const stream = guard(createProvider(model.provider, model.stallTimeoutMs ? { stallTimeoutMs: model.stallTimeoutMs } : {})).stream(
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
    // A limit's refusal (or limits that could not be checked) is the call's answer, not the model's.
    if (err instanceof AppError) throw err;
    const failure =
      err instanceof ProviderError
        ? { kind: err.kind, ...(err.status !== undefined && { status: err.status }), message: err.message }
        : signal.aborted
          ? { kind: "timeout", message: `no answer within ${CHECK_TIMEOUT_MS / 1000} s` }
          : { kind: "internal", message: "the check failed" };
    return { model: model.name, ok: false, durationMs: Date.now() - started, error: failure };
  }
}
