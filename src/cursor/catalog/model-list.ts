// The model list Cursor shows: the configured BYOK models, each with the context
// limit Cursor must respect (without context_token_limit it assumes 200k).
import { create } from "@bufbuild/protobuf";
import {
  AvailableModelsResponseSchema,
  GetDefaultModelNudgeDataResponseSchema,
  GetDefaultModelResponseSchema,
  type AvailableModelsResponse,
} from "../../proto/gen/aiserver/v1/aiserver_pb.ts";
import {
  GetDefaultModelForCliResponseSchema,
  GetUsableModelsResponseSchema,
  ModelDetailsSchema,
  type ModelDetails,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import type { ModelConfig } from "../../provider/types.ts";
import { parameterChoices, type ParameterChoice } from "./model-parameters.ts";

/** Placeholder credential: Cursor wants one per BYOK model; the real key stays server-side. */
const CLIENT_CREDENTIAL = "byok-edge";

export function availableModels(models: ModelConfig[]): AvailableModelsResponse {
  return create(AvailableModelsResponseSchema, {
    modelNames: models.map((m) => m.name),
    models: models.map((m, index) => ({
      name: m.name,
      defaultOn: true,
      supportsAgent: true,
      supportsThinking: true,
      // Cursor drops the images of a message to a model it believes cannot see them.
      // A text-only model with an image model takes images: they reach it described (docs/providers.md#images-for-text-only-models).
      supportsImages: m.vision !== false || m.imageModel !== undefined,
      supportsMaxMode: false,
      supportsNonMaxMode: true,
      contextTokenLimit: m.contextWindow,
      contextTokenLimitForMaxMode: m.contextWindow,
      clientDisplayName: m.name,
      serverModelName: m.name,
      supportsPlanMode: true,
      inputboxShortModelName: m.name,
      supportsSandboxing: true,
      supportsCmdK: true,
      namedModelSectionIndex: index,
      vendorName: "BYOK",
      tooltipData: { primaryText: `${m.name} (${m.provider}, bring your own key)` },
      parameterDefinitions: parameterChoices(m).map((p) => ({
        id: p.id,
        name: p.name,
        isCycleableByHotkey: p.id === "reasoning",
        parameterType:
          p.kind === "boolean"
            ? {
                booleanParameter: {
                  values: p.values.map((v) => ({ value: v.value, displayName: v.label, increasesModelCost: v.costsMore ?? false })),
                },
              }
            : { enumParameter: { values: p.values.map((v) => ({ value: v.value, displayName: v.label })) } },
      })),
      variants: variantsOf(m),
    })),
    useModelParameters: true,
  });
}

/** One variant per parameter combination, e.g. `name[context=200k,reasoning=high]`. */
function variantsOf(model: ModelConfig) {
  const choices = parameterChoices(model);
  if (choices.length === 0) return [];
  let combos: { id: string; value: string }[][] = [[]];
  for (const choice of choices) {
    combos = combos.flatMap((combo) => choice.values.map((v) => [...combo, { id: choice.id, value: v.value }]));
  }
  const isDefault = (combo: { id: string; value: string }[]) =>
    combo.every((p) => choices.find((c: ParameterChoice) => c.id === p.id)?.defaultValue === p.value);
  return combos.map((combo) => {
    const sorted = [...combo].sort((a, b) => a.id.localeCompare(b.id));
    return {
      parameterValues: combo,
      displayName: `${model.name} ${combo.map((p) => p.value).join(" ")}`,
      isMaxMode: false,
      isDefaultNonMaxConfig: isDefault(combo),
      variantStringRepresentation: `${model.name}[${sorted.map((p) => `${p.id}=${p.value}`).join(",")}]`,
    };
  });
}

function modelDetails(model: ModelConfig): ModelDetails {
  return create(ModelDetailsSchema, {
    modelId: model.name,
    displayModelId: model.name,
    displayName: model.name,
    displayNameShort: model.name,
    thinkingDetails: {},
    credentials: { case: "apiKeyCredentials", value: { apiKey: CLIENT_CREDENTIAL } },
  });
}

export function usableModels(models: ModelConfig[]) {
  return create(GetUsableModelsResponseSchema, { models: models.map(modelDetails) });
}

export function defaultModelForCli(models: ModelConfig[]) {
  const first = models[0];
  return create(GetDefaultModelForCliResponseSchema, first ? { model: modelDetails(first) } : {});
}

export function defaultModel(models: ModelConfig[]) {
  const name = models[0]?.name ?? "";
  return create(GetDefaultModelResponseSchema, { model: name, thinkingModel: name });
}

export function defaultModelNudgeData(models: ModelConfig[]) {
  return create(GetDefaultModelNudgeDataResponseSchema, {
    nudgeDate: "0",
    modelsWithNoDefaultSwitch: models.map((m) => m.name),
  });
}
