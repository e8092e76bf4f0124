// Cursor's model parameters (the picker's "reasoning", "context" and "fast"
// choices) and how a run's requested values map onto a configured model.
import type { ModelConfig } from "../../provider/types.ts";

const REASONING_LEVELS = ["low", "medium", "high"] as const;
/** Context sizes offered in the picker, never above what the operator configured. */
const CONTEXT_STEPS = [128_000, 200_000, 272_000, 400_000, 1_000_000];

export interface ParameterChoice {
  id: "reasoning" | "context" | "fast";
  name: string;
  kind: "enum" | "boolean";
  values: { value: string; label: string; costsMore?: boolean }[];
  defaultValue: string;
}

function contextLabel(tokens: number): string {
  return tokens >= 1_000_000 && tokens % 1_000_000 === 0 ? `${tokens / 1_000_000}m` : `${Math.round(tokens / 1000)}k`;
}

function parseContextLabel(label: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([km])$/i.exec(label.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (match[2]!.toLowerCase() === "m" ? 1_000_000 : 1_000));
}

/** The parameters a model offers: reasoning when it reasons, context when there is a choice. */
export function parameterChoices(model: ModelConfig): ParameterChoice[] {
  const choices: ParameterChoice[] = [];
  if (model.reasoningEffort) {
    const levels: string[] = [...REASONING_LEVELS];
    if (!levels.includes(model.reasoningEffort)) levels.push(model.reasoningEffort);
    choices.push({
      id: "reasoning",
      name: "Reasoning",
      kind: "enum",
      values: levels.map((v) => ({ value: v, label: v[0]!.toUpperCase() + v.slice(1) })),
      defaultValue: model.reasoningEffort,
    });
  }
  const sizes = [...new Set([...CONTEXT_STEPS.filter((n) => n < model.contextWindow), model.contextWindow])];
  if (sizes.length > 1) {
    choices.push({
      id: "context",
      name: "Context",
      kind: "enum",
      values: sizes.map((n) => ({ value: contextLabel(n), label: contextLabel(n) })),
      defaultValue: contextLabel(model.contextWindow),
    });
  }
  if (model.fastServiceTier) {
    choices.push({
      id: "fast",
      name: "Fast",
      kind: "boolean",
      values: [
        { value: "false", label: "Standard" },
        { value: "true", label: "Fast", costsMore: true },
      ],
      defaultValue: "false",
    });
  }
  return choices;
}

/** The model as a run asked for it: reasoning and context chosen in Cursor's picker. */
export function applyParameters(model: ModelConfig, parameters: readonly { id: string; value: string }[]): ModelConfig {
  let out = model;
  for (const { id, value } of parameters) {
    if (id === "reasoning" && model.reasoningEffort && value) out = { ...out, reasoningEffort: value };
    // Fast runs on the provider's priority tier, e.g. OpenAI's service_tier "priority".
    if (id === "fast" && value === "true" && model.fastServiceTier) {
      out = { ...out, extraBody: { ...out.extraBody, service_tier: model.fastServiceTier } };
    }
    if (id === "context") {
      const tokens = parseContextLabel(value);
      if (tokens && tokens < model.contextWindow) out = { ...out, contextWindow: tokens };
    }
  }
  return out;
}

/** Splits Cursor's variant string `name[context=200k,reasoning=high]` into name and parameters. */
export function parseVariant(modelId: string): { name: string; parameters: { id: string; value: string }[] } {
  const match = /^(.*)\[([^\]]*)\]$/.exec(modelId);
  if (!match) return { name: modelId, parameters: [] };
  const parameters = match[2]!
    .split(",")
    .map((pair) => pair.split("="))
    .filter((kv): kv is [string, string] => kv.length === 2 && !!kv[0])
    .map(([id, value]) => ({ id: id.trim(), value: value.trim() }));
  return { name: match[1]!, parameters };
}
