// audio, generatedImage and content: every expectation here was observed on the
// reference host (codex-code-mode-host 0.169.0) with the same source.
import { describe, expect, it } from "vitest";
import type { ContentItem, RuntimeResponse } from "../../../../src/code-mode/engine/engine-types.ts";
import { newSession, RecordingDelegate, request, text } from "../../../support/code-mode-engine.ts";
import { withTimeout } from "../../../support/deferred.ts";

const T = 10_000;
const PNG = "data:image/png;base64,iVBORw0KGgo=";
const SHORT_NOTICE = "Audio output omitted because the clip is shorter than 25 ms; use a longer clip.";
const AUDIO_SHAPE = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";
const ONE_BLOCK = "content expects one MCP ContentBlock";
const SERIALIZE = "failed to serialize JavaScript value: expected value at line 1 column 1";

async function run(source: string): Promise<RuntimeResponse> {
  const started = newSession().execute(request(source), new RecordingDelegate());
  return withTimeout(started.initialResponse, T, `the result of ${source}`);
}

async function itemsOf(source: string): Promise<ContentItem[]> {
  const response = await run(source);
  if (response.kind === "completed" && response.errorText !== undefined) throw new Error(`cell failed: ${response.errorText}`);
  return response.items;
}

/** What each call throws (a string), or "ok"; the items the calls produce come in between. */
function attempts(calls: string[]): string {
  return calls.map((call) => `try { ${call}; text("ok"); } catch (e) { text(typeof e + ": " + e); }`).join("\n");
}

/** An 8 kHz mono 8-bit PCM WAV of `ms` milliseconds whose header claims `headerMs`. */
function wav(ms: number, headerMs = ms): string {
  const frames = (ms * 8000) / 1000;
  const claimed = (headerMs * 8000) / 1000;
  const bytes = new Uint8Array(44 + frames).fill(128);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) view.setUint8(at + i, s.charCodeAt(i));
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + claimed, true);
  ascii(8, "WAVEfmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 8000, true);
  view.setUint32(28, 8000, true);
  view.setUint16(32, 1, true);
  view.setUint16(34, 8, true);
  ascii(36, "data");
  view.setUint32(40, claimed, true);
  return btoa(String.fromCharCode(...bytes));
}

const audio = (url: string): ContentItem => ({ type: "input_audio", audio_url: url });
const image = (url: string, detail = "high"): ContentItem => ({ type: "input_image", image_url: url, detail }) as ContentItem;

describe("audio", () => {
  it("accepts a data URL, an audio_url object and an MCP audio block", async () => {
    const clip = wav(100);
    const url = `data:audio/wav;base64,${clip}`;
    expect(
      await itemsOf(
        `audio(${JSON.stringify(url)}); audio({ audio_url: ${JSON.stringify(url)} }); audio({ type: "audio", data: "${clip}", mimeType: "audio/wav" });` +
          ` audio({ type: "audio", data: "AAAA" }); audio("DATA:audio/wav,xyz", "ignored"); audio("data:audio/wav;base64,@@@")`,
      ),
    ).toEqual([
      audio(url),
      audio(url),
      audio(url),
      audio("data:application/octet-stream;base64,AAAA"),
      audio("DATA:audio/wav,xyz"),
      audio("data:audio/wav;base64,@@@"),
    ]);
  });

  it("replaces a WAV clip shorter than 25 ms, measured on the data present, by a notice in its place", async () => {
    const source = [wav(24), wav(10, 1000), wav(100, 10), wav(0)].map((clip) => `audio("data:audio/wav;base64,${clip}");`).join(" ");
    expect(await itemsOf(`text("before"); ${source} audio({ type: "audio", data: "${wav(10)}" }); text("after")`)).toEqual([
      text("before"),
      ...Array(5).fill(text(SHORT_NOTICE)),
      text("after"),
    ]);
    const kept = `data:audio/wav;base64,${wav(25)}`;
    expect(await itemsOf(`audio(${JSON.stringify(kept)})`)).toEqual([audio(kept)]);
  });

  it("refuses other input with Codex's texts, thrown as strings", async () => {
    const calls = [
      `audio("https://x/a.wav")`,
      `audio("file:///a.wav")`,
      `audio({ audio_url: "x", type: "image" })`,
      `audio("")`,
      `audio()`,
      `audio(5)`,
      `audio({})`,
      `audio({ audio_url: "" })`,
      `audio({ type: 5 })`,
      `audio(["data:audio/wav;base64,AAAA"])`,
      `audio({ type: "image", data: "x" })`,
      `audio({ type: "audio", data: "" })`,
      `audio(() => 1)`,
    ];
    expect(await itemsOf(attempts(calls))).toEqual(
      [
        "Tool call failed: invalid audio output. Pass a base64 data URI instead",
        "Tool call failed: invalid audio output. Pass a base64 data URI instead",
        "Tool call failed: invalid audio output. Pass a base64 data URI instead",
        ...Array(7).fill(AUDIO_SHAPE),
        'audio only accepts MCP audio blocks, got "image"',
        "audio expected MCP audio data",
        SERIALIZE,
      ].map((message) => text(`string: ${message}`)),
    );
  });
});

describe("generatedImage", () => {
  it("emits the result's image with its own detail, then its output hint", async () => {
    const source = [
      `generatedImage({ image_url: "${PNG}" })`,
      `generatedImage({ image_url: "${PNG}", output_hint: "hint" })`,
      `generatedImage({ image_url: "${PNG}", detail: "low", output_hint: "" })`,
      `generatedImage({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", output_hint: "h" })`,
    ].join("; ");
    expect(await itemsOf(source)).toEqual([image(PNG), image(PNG), text("hint"), image(PNG, "low"), text(""), image(PNG), text("h")]);
  });

  it("refuses what is not an image generation result, checking the hint before the image", async () => {
    const shape = "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";
    const calls = [
      `generatedImage()`,
      `generatedImage("${PNG}")`,
      `generatedImage(null)`,
      `generatedImage({ result: "x" })`,
      `generatedImage([1])`,
      `generatedImage({ output_hint: 5 })`,
      `generatedImage({ image_url: "${PNG}", output_hint: null })`,
      `generatedImage({ image_url: "https://x/a.png" })`,
      `generatedImage(() => 1)`,
    ];
    expect(await itemsOf(attempts(calls))).toEqual(
      [
        ...Array(3).fill("generatedImage expects an image generation result object"),
        shape,
        shape,
        "generatedImage output_hint must be a string when provided",
        "generatedImage output_hint must be a string when provided",
        "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
        SERIALIZE,
      ].map((message) => text(`string: ${message}`)),
    );
  });
});

describe("content", () => {
  it("emits an MCP text, image or audio block as its item", async () => {
    const source = [
      `content({ type: "text", text: "hi", annotations: { audience: ["user"] }, _meta: { a: 1 } })`,
      `content({ type: "text", text: "" })`,
      `content({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", detail: "low" })`,
      `content({ type: "image", data: "" })`,
      `content({ type: "image", data: "${PNG}", mimeType: "image/png" })`,
      `content({ type: "audio", data: "AAAA", mimeType: "audio/wav" })`,
      `content({ type: "audio", data: "${wav(10)}", mimeType: "audio/wav" })`,
    ].join("; ");
    expect(await itemsOf(source)).toEqual([
      text("hi"),
      text(""),
      image(PNG),
      image("data:application/octet-stream;base64,"),
      image(PNG),
      audio("data:audio/wav;base64,AAAA"),
      text(SHORT_NOTICE),
    ]);
  });

  it("emits resource links and embedded resources as their JSON text", async () => {
    const link = `{ name: "a", uri: "u", type: "resource_link", extra: 1 }`;
    const resource = `{ type: "resource", resource: { text: "b", uri: "u" }, annotations: { priority: 1 } }`;
    expect(await itemsOf(`content(${link}); content(${resource})`)).toEqual([
      text('{"name":"a","uri":"u","type":"resource_link","extra":1}'),
      text('{"type":"resource","resource":{"text":"b","uri":"u"},"annotations":{"priority":1}}'),
    ]);
  });

  it("emits each block of an iterable, keeping those before a refused one", async () => {
    expect(await itemsOf(attempts([`content([{ type: "text", text: "a" }, { type: "text", text: "b" }])`]))).toEqual([
      text("a"),
      text("b"),
      text("ok"),
    ]);
    expect(await itemsOf(attempts([`content([{ type: "text", text: "a" }, { type: "bad" }, { type: "text", text: "c" }])`]))).toEqual([
      text("a"),
      text(`string: ${ONE_BLOCK}`),
    ]);
    expect(await itemsOf(`content(new Set([{ type: "text", text: "s" }])); content([])`)).toEqual([text("s")]);
  });

  it("refuses anything else as not one MCP ContentBlock", async () => {
    const calls = [
      `content("hi")`,
      `content()`,
      `content(null)`,
      `content(5)`,
      `content({})`,
      `content({ type: "text" })`,
      `content({ type: "text", text: 5 })`,
      `content({ type: "image" })`,
      `content({ type: "image", data: "x", mimeType: 5 })`,
      `content({ type: "audio" })`,
      `content({ type: "resource_link", uri: "x" })`,
      `content({ type: "resource" })`,
      `content({ type: "input_text", text: "x" })`,
      `content([[{ type: "text", text: "n" }]])`,
      `content(() => 1)`,
    ];
    expect(await itemsOf(attempts(calls))).toEqual([...Array(14).fill(ONE_BLOCK), SERIALIZE].map((message) => text(`string: ${message}`)));
  });
});
