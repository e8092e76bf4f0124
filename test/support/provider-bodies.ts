// The three wire APIs side by side for tests that run once per provider: the
// configured model of each, scripted tool-call turns, and provider-neutral
// readings of the recorded request bodies (offered tools, images, tool results).
import { anthropicStream } from "../fixtures/anthropic/stream.ts";
import { responsesStream } from "../fixtures/openai-responses/stream.ts";
import { chatText, chatToolCalls, type ScriptedResponse } from "./fake-provider.ts";

export type Wire = "openai-chat" | "openai-responses" | "anthropic";

/** The configured test model (vitest.config.ts) of each wire API. */
export const WIRES: { wire: Wire; model: string }[] = [
  { wire: "openai-chat", model: "fake-model" },
  { wire: "openai-responses", model: "fake-responses" },
  { wire: "anthropic", model: "fake-anthropic" },
];

export interface ScriptedCall {
  id: string;
  name: string;
  args: string[];
}

/** One model response calling `call`. */
export function toolCallResponse(wire: Wire, call: ScriptedCall): ScriptedResponse {
  switch (wire) {
    case "openai-chat":
      return chatToolCalls([call]);
    case "openai-responses":
      return responsesStream().created().functionCall({ callId: call.id, name: call.name, args: call.args }).completed().response();
    case "anthropic":
      return anthropicStream({ toolUses: [{ id: call.id, name: call.name, input: call.args }] });
  }
}

/** One model response answering with text. */
export function textResponse(wire: Wire, text: string[]): ScriptedResponse {
  switch (wire) {
    case "openai-chat":
      return chatText(text);
    case "openai-responses":
      return responsesStream().created().message(text).completed().response();
    case "anthropic":
      return anthropicStream({ text });
  }
}

type Json = Record<string, unknown>;
const parse = (body: string) => JSON.parse(body) as Json;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** The tools a request offers, as name and parameters schema, in order. */
export function offeredTools(wire: Wire, body: string): { name: string; parameters: unknown; strict?: unknown }[] {
  const tools = list(parse(body).tools);
  switch (wire) {
    case "openai-chat":
      return tools.map((t) => {
        const fn = t.function as Json;
        return { name: fn.name as string, parameters: fn.parameters };
      });
    case "openai-responses":
      return tools.map((t) => ({ name: t.name as string, parameters: t.parameters, strict: t.strict }));
    case "anthropic":
      return tools.map((t) => ({ name: t.name as string, parameters: t.input_schema }));
  }
}

/** Every image of a request as a data URI, in the order they appear. */
export function imagesIn(wire: Wire, body: string): string[] {
  const request = parse(body);
  switch (wire) {
    case "openai-chat":
      return list(request.messages).flatMap((m) =>
        list(m.content).flatMap((part) => (part.type === "image_url" ? [(part.image_url as Json).url as string] : [])),
      );
    case "openai-responses":
      return list(request.input).flatMap((item) =>
        list(item.content).flatMap((part) => (part.type === "input_image" ? [part.image_url as string] : [])),
      );
    case "anthropic": {
      const uri = (block: Json) => {
        const source = block.source as Json;
        return `data:${source.media_type};base64,${source.data}`;
      };
      return list(request.messages).flatMap((m) =>
        list(m.content).flatMap((block) => {
          if (block.type === "image") return [uri(block)];
          if (block.type === "tool_result") return list(block.content).flatMap((inner) => (inner.type === "image" ? [uri(inner)] : []));
          return [];
        }),
      );
    }
  }
}

/** The text a request gives the model as the result of one tool call. */
export function toolResultText(wire: Wire, body: string, callId: string): string | undefined {
  const request = parse(body);
  switch (wire) {
    case "openai-chat":
      return list(request.messages).find((m) => m.role === "tool" && m.tool_call_id === callId)?.content as string | undefined;
    case "openai-responses":
      return list(request.input).find((i) => i.type === "function_call_output" && i.call_id === callId)?.output as string | undefined;
    case "anthropic": {
      const block = list(request.messages)
        .flatMap((m) => list(m.content))
        .find((b) => b.type === "tool_result" && b.tool_use_id === callId);
      if (!block) return undefined;
      if (typeof block.content === "string") return block.content;
      return list(block.content)
        .flatMap((inner) => (inner.type === "text" ? [inner.text as string] : []))
        .join("");
    }
  }
}

/** The text of every user message of a request, in order. */
export function userTexts(wire: Wire, body: string): string[] {
  const request = parse(body);
  const texts = (content: unknown, type: string) =>
    typeof content === "string"
      ? content
      : list(content)
          .flatMap((p) => (p.type === type ? [p.text as string] : []))
          .join("");
  switch (wire) {
    case "openai-chat":
      return list(request.messages).flatMap((m) => (m.role === "user" ? [texts(m.content, "text")] : []));
    case "openai-responses":
      return list(request.input).flatMap((i) => (i.role === "user" ? [texts(i.content, "input_text")] : []));
    case "anthropic":
      return list(request.messages).flatMap((m) => (m.role === "user" ? [texts(m.content, "text")] : []));
  }
}
