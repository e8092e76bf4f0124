// The unary calls Cursor makes around a run, answered from the configured models.
import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { fromBinary, type DescMessage } from "@bufbuild/protobuf";
import {
  AvailableModelsResponseSchema,
  GetDefaultModelResponseSchema,
  GetServerConfigResponseSchema,
  Http2Config,
} from "../../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { GetUsableModelsResponseSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { BASE } from "../../support/cursor-client.ts";
import { availableModels } from "../../../src/cursor/catalog/model-list.ts";
import { applyParameters, parseVariant } from "../../../src/cursor/catalog/model-parameters.ts";
import type { ModelConfig } from "../../../src/provider/types.ts";

async function unary<D extends DescMessage>(path: string, schema: D) {
  const res = await exports.default.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer test-token", "content-type": "application/proto" },
    body: new Uint8Array(0),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/proto");
  return fromBinary(schema, new Uint8Array(await res.arrayBuffer()));
}

describe("catalogue and account calls", () => {
  it("tells Cursor to use HTTP/1.1 RunSSE and BidiAppend on both GetServerConfig services", async () => {
    for (const path of ["/aiserver.v1.AiService/GetServerConfig", "/aiserver.v1.ServerConfigService/GetServerConfig"]) {
      const config = await unary(path, GetServerConfigResponseSchema);
      expect(config.http2Config).toBe(Http2Config.FORCE_ALL_DISABLED);
    }
  });

  it("lists the configured models with their context token limits", async () => {
    const models = await unary("/aiserver.v1.AiService/AvailableModels", AvailableModelsResponseSchema);
    expect(models.modelNames).toEqual([
      "fake-model",
      "fake-small",
      "fake-responses",
      "fake-anthropic",
      "fake-stall",
      "fake-fallback",
      "fake-roles",
      "fake-text",
    ]);
    expect(models.models.slice(0, 2).map((m) => [m.name, m.contextTokenLimit, m.supportsAgent])).toEqual([
      ["fake-model", 128000, true],
      ["fake-small", 32000, true],
    ]);
  });

  it("offers reasoning and context choices as parameters and variants, never above the configured window", () => {
    const model: ModelConfig = {
      name: "big",
      provider: "openai-chat",
      baseUrl: "https://example.com/v1",
      apiKey: "k",
      model: "m",
      contextWindow: 400_000,
      reasoningEffort: "high",
    };
    const [entry] = availableModels([model]).models;
    expect(entry!.parameterDefinitions.map((p) => [p.id, p.parameterType?.enumParameter?.values.map((v) => v.value)])).toEqual([
      ["reasoning", ["low", "medium", "high"]],
      ["context", ["128k", "200k", "272k", "400k"]],
    ]);
    expect(entry!.variants).toHaveLength(12);
    const byDefault = entry!.variants.filter((v) => v.isDefaultNonMaxConfig);
    expect(byDefault.map((v) => v.variantStringRepresentation)).toEqual(["big[context=400k,reasoning=high]"]);
    expect(applyParameters(model, parseVariant("big[context=200k,reasoning=low]").parameters)).toMatchObject({
      contextWindow: 200_000,
      reasoningEffort: "low",
    });
  });

  it("says a model takes images unless it is configured with vision: false, so Cursor sends them", async () => {
    const listed = await unary("/aiserver.v1.AiService/AvailableModels", AvailableModelsResponseSchema);
    // fake-text takes none itself, but its image model describes them.
    expect(listed.models.every((m) => m.supportsImages)).toBe(true);
    const model: ModelConfig = {
      name: "blind",
      provider: "openai-chat",
      baseUrl: "https://example.com/v1",
      apiKey: "k",
      model: "m",
      contextWindow: 8000,
    };
    expect(availableModels([{ ...model, vision: false }]).models[0]?.supportsImages).toBe(false);
  });

  it("offers a fast choice for models with a fast service tier, which then runs on that tier", () => {
    const model: ModelConfig = {
      name: "quick",
      provider: "openai-responses",
      baseUrl: "https://api.openai.com/v1",
      apiKey: "k",
      model: "gpt-5",
      contextWindow: 128_000,
      fastServiceTier: "priority",
    };
    const [entry] = availableModels([model]).models;
    const fast = entry!.parameterDefinitions.find((p) => p.id === "fast");
    expect(fast?.parameterType?.booleanParameter?.values.map((v) => [v.value, v.increasesModelCost])).toEqual([
      ["false", false],
      ["true", true],
    ]);
    expect(entry!.variants.map((v) => v.variantStringRepresentation)).toEqual(["quick[fast=false]", "quick[fast=true]"]);
    expect(applyParameters(model, [{ id: "fast", value: "true" }]).extraBody).toEqual({ service_tier: "priority" });
    expect(applyParameters(model, [{ id: "fast", value: "false" }]).extraBody).toBeUndefined();
  });

  it("offers the same models as usable on both services and names a default", async () => {
    for (const path of ["/agent.v1.AgentService/GetUsableModels", "/aiserver.v1.AiService/GetUsableModels"]) {
      const usable = await unary(path, GetUsableModelsResponseSchema);
      // BYOK_MODELS first; the single user's stored models (other files') would follow them.
      expect(usable.models.map((m) => m.modelId).slice(0, 5)).toEqual([
        "fake-model",
        "fake-small",
        "fake-responses",
        "fake-anthropic",
        "fake-stall",
      ]);
      expect(usable.models[0]?.credentials.case).toBe("apiKeyCredentials");
    }
    expect((await unary("/aiserver.v1.AiService/GetDefaultModel", GetDefaultModelResponseSchema)).model).toBe("fake-model");
  });

  it("answers IsConnected and the account calls Cursor makes at start-up", async () => {
    for (const path of [
      "/aiserver.v1.NetworkService/IsConnected",
      "/aiserver.v1.AuthService/GetEmail",
      "/aiserver.v1.DashboardService/GetMe",
      "/aiserver.v1.DashboardService/GetTeams",
      "/agent.v1.AgentService/UpdateConversationMetadata",
    ]) {
      const res = await exports.default.fetch(`${BASE}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer test-token", "content-type": "application/proto" },
      });
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
    }
  });
});
