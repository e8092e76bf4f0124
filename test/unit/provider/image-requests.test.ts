// Images in the three request bodies: each API's own image format, tool-result
// images, and text-only bodies exactly as they were before images existed.
import { describe, expect, it } from "vitest";
import { buildAnthropicRequestBody } from "../../../src/provider/anthropic-request.ts";
import { buildChatRequestBody } from "../../../src/provider/openai-chat-request.ts";
import { buildResponsesRequestBody } from "../../../src/provider/openai-responses-request.ts";
import type { ChatMessage, ModelConfig, ModelRequest, ProviderKind } from "../../../src/provider/types.ts";

const PNG = { mimeType: "image/png", data: "iVBORw0KGgo=" };
const GIF = { mimeType: "image/gif", data: "R0lGODlh" };

function request(provider: ProviderKind, messages: ChatMessage[]): ModelRequest {
  const model: ModelConfig = { name: "m", provider, baseUrl: "http://127.0.0.1/v1", apiKey: "k", model: "m-1", contextWindow: 1000 };
  return { model, messages, tools: [], signal: new AbortController().signal };
}

const toolRound = (images: boolean): ChatMessage[] => [
  { role: "system", content: "sys" },
  { role: "user", content: "read both" },
  {
    role: "assistant",
    content: "",
    toolCalls: [
      { id: "c1", name: "Read", arguments: '{"path":"/a.png"}' },
      { id: "c2", name: "Read", arguments: '{"path":"/b.txt"}' },
    ],
  },
  { role: "tool", toolCallId: "c1", name: "Read", content: "/a.png is an image", ...(images && { images: [PNG] }) },
  { role: "tool", toolCallId: "c2", name: "Read", content: "text" },
];

describe("OpenAI Chat bodies", () => {
  const body = (messages: ChatMessage[]) => JSON.parse(buildChatRequestBody(request("openai-chat", messages))).messages;

  it("send a user message's images as image_url data URIs after its text", () => {
    expect(body([{ role: "user", content: "what is this?", images: [PNG, GIF] }])).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "data:image/gif;base64,R0lGODlh" } },
        ],
      },
    ]);
    expect(body([{ role: "user", content: "", images: [PNG] }])[0].content).toHaveLength(1);
  });

  it("follow a round's tool messages with one user message carrying their images", () => {
    const messages = body([...toolRound(true), { role: "assistant", content: "done" }]);
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "user", "assistant"]);
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: "c1", content: "/a.png is an image" });
    expect(messages[5]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "The image returned by the Read call c1:" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    });
    // At the end of the history too, before the next call.
    expect(body(toolRound(true)).at(-1).role).toBe("user");
  });

  it("keep a text-only body byte for byte", () => {
    expect(buildChatRequestBody(request("openai-chat", toolRound(false)))).toBe(
      '{"model":"m-1","messages":[{"role":"system","content":"sys"},{"role":"user","content":"read both"},' +
        '{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\\"path\\":\\"/a.png\\"}"}},' +
        '{"id":"c2","type":"function","function":{"name":"Read","arguments":"{\\"path\\":\\"/b.txt\\"}"}}]},' +
        '{"role":"tool","tool_call_id":"c1","content":"/a.png is an image"},{"role":"tool","tool_call_id":"c2","content":"text"}],' +
        '"stream":true,"stream_options":{"include_usage":true}}',
    );
  });
});

describe("OpenAI Responses bodies", () => {
  const input = (messages: ChatMessage[]) => JSON.parse(buildResponsesRequestBody(request("openai-responses", messages))).input;

  it("send a user message's images as input_image data URLs after its text", () => {
    expect(input([{ role: "user", content: "what is this?", images: [PNG] }])).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "what is this?" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
        ],
      },
    ]);
    expect(input([{ role: "user", content: "", images: [PNG] }])[0].content).toEqual([
      { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
    ]);
  });

  it("follow a round's function_call_outputs with one user message carrying their images", () => {
    const items = input([...toolRound(true), { role: "user", content: "next" }]);
    expect(items.map((i: { type?: string; role?: string }) => i.type ?? i.role)).toEqual([
      "system",
      "user",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "user",
      "user",
    ]);
    expect(items[6]).toEqual({
      role: "user",
      content: [
        { type: "input_text", text: "The image returned by the Read call c1:" },
        { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
      ],
    });
  });

  it("keep a text-only body byte for byte", () => {
    expect(
      buildResponsesRequestBody(
        request("openai-responses", [
          { role: "user", content: "hi" },
          { role: "user", content: "" },
        ]),
      ),
    ).toBe(
      '{"model":"m-1","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]},' +
        '{"role":"user","content":[{"type":"input_text","text":""}]}],"stream":true,"store":false}',
    );
  });
});

describe("Anthropic bodies", () => {
  const messages = (history: ChatMessage[]) => JSON.parse(buildAnthropicRequestBody(request("anthropic", history))).messages;
  const pngBlock = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };

  it("send a user message's images as base64 image blocks before its text", () => {
    expect(messages([{ role: "user", content: "what is this?", images: [PNG] }])).toEqual([
      { role: "user", content: [pngBlock, { type: "text", text: "what is this?", cache_control: { type: "ephemeral" } }] },
    ]);
  });

  it("put a tool's images inside its tool_result, next to the text", () => {
    const last = messages(toolRound(true)).at(-1);
    expect(last.role).toBe("user");
    expect(last.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "c1",
      content: [{ type: "text", text: "/a.png is an image" }, pngBlock],
    });
    expect(last.content[1]).toMatchObject({ type: "tool_result", tool_use_id: "c2", content: "text" });
  });

  it("keep a text-only body byte for byte", () => {
    expect(buildAnthropicRequestBody(request("anthropic", toolRound(false)))).toBe(
      '{"model":"m-1","max_tokens":8192,"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],' +
        '"messages":[{"role":"user","content":[{"type":"text","text":"read both"}]},' +
        '{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Read","input":{"path":"/a.png"}},' +
        '{"type":"tool_use","id":"c2","name":"Read","input":{"path":"/b.txt"}}]},' +
        '{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"/a.png is an image"},' +
        '{"type":"tool_result","tool_use_id":"c2","content":"text","cache_control":{"type":"ephemeral"}}]}],"stream":true}',
    );
  });
});
