// Where a provider call goes and which header carries its key (src/provider/endpoint.ts):
// the path joins the base URL before its query string, and Azure OpenAI gets api-key.
import { describe, expect, it } from "vitest";
import { endpointUrl, isAzureOpenAi, openAiKeyHeaders } from "../../../src/provider/endpoint.ts";

describe("endpointUrl", () => {
  it("appends the path to a base URL, with or without a trailing slash", () => {
    expect(endpointUrl("https://api.openai.com/v1", "/chat/completions")).toBe("https://api.openai.com/v1/chat/completions");
    expect(endpointUrl("https://api.openai.com/v1//", "/chat/completions")).toBe("https://api.openai.com/v1/chat/completions");
    expect(endpointUrl("https://api.deepseek.com", "/chat/completions")).toBe("https://api.deepseek.com/chat/completions");
  });

  it("puts the path before the base URL's query string, which stays as written", () => {
    const base = "https://contoso.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21";
    expect(endpointUrl(base, "/chat/completions")).toBe(
      "https://contoso.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
    );
    expect(endpointUrl("https://h.example/v1/?a=1&b=%2F", "/responses")).toBe("https://h.example/v1/responses?a=1&b=%2F");
  });
});

describe("isAzureOpenAi", () => {
  it("knows Azure's hosts of OpenAI models", () => {
    for (const url of [
      "https://contoso.openai.azure.com/openai/v1",
      "https://contoso.cognitiveservices.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21",
      "https://contoso.services.ai.azure.com/models",
    ]) {
      expect(isAzureOpenAi(url), url).toBe(true);
    }
  });

  it("knows a deployment URL on any host, such as a gateway in front of Azure", () => {
    expect(isAzureOpenAi("https://gateway.example.com/openai/deployments/gpt-4o?api-version=2024-10-21")).toBe(true);
  });

  it("is false for OpenAI, compatible services and names that only look alike", () => {
    for (const url of [
      "https://api.openai.com/v1",
      "https://openrouter.ai/api/v1",
      "https://openai.azure.com.example.com/v1",
      "https://example.com/openai/deployments/",
      "not a url",
    ]) {
      expect(isAzureOpenAi(url), url).toBe(false);
    }
  });
});

describe("openAiKeyHeaders", () => {
  it("sends the key as api-key to Azure OpenAI and as a Bearer token elsewhere", () => {
    expect(openAiKeyHeaders("https://contoso.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "k1")).toEqual({
      "api-key": "k1",
    });
    expect(openAiKeyHeaders("https://api.openai.com/v1", "sk-1")).toEqual({ authorization: "Bearer sk-1" });
  });
});
