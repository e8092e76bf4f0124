// Image typing by the bytes, what a model without vision gets instead of images,
// and how many images one request carries.
import { describe, expect, it } from "vitest";
import { forModelVision, imagePartOf } from "../../../src/provider/images.ts";
import { withinImageBudget } from "../../../src/provider/image-budget.ts";
import type { ChatMessage, ModelConfig, ModelRequest } from "../../../src/provider/types.ts";

const bytes = (...values: (number | string)[]) =>
  new Uint8Array(values.flatMap((v) => (typeof v === "string" ? [...v].map((c) => c.charCodeAt(0)) : [v])));

const PNG = bytes(0x89, "PNG", 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, "IHDR");
const JPEG = bytes(0xff, 0xd8, 0xff, 0xe0, 0, 16, "JFIF");
const GIF87 = bytes("GIF87a", 1, 0, 1, 0);
const GIF89 = bytes("GIF89a", 1, 0, 1, 0);
const WEBP = bytes("RIFF", 26, 0, 0, 0, "WEBPVP8 ");

/** The type the bytes alone give (nothing declared). */
const sniffImageType = (data: Uint8Array) => imagePartOf(data)?.mimeType;

describe("typing images by their bytes", () => {
  it("recognises PNG, JPEG, GIF (87a and 89a) and WebP by their first bytes", () => {
    expect(sniffImageType(PNG)).toBe("image/png");
    expect(sniffImageType(JPEG)).toBe("image/jpeg");
    expect(sniffImageType(GIF87)).toBe("image/gif");
    expect(sniffImageType(GIF89)).toBe("image/gif");
    expect(sniffImageType(WEBP)).toBe("image/webp");
  });

  it("recognises nothing else: text, a RIFF that is not WebP, truncated signatures, no bytes", () => {
    expect(sniffImageType(bytes("hello world"))).toBeUndefined();
    expect(sniffImageType(bytes("RIFF", 26, 0, 0, 0, "WAVEfmt "))).toBeUndefined();
    expect(sniffImageType(PNG.slice(0, 5))).toBeUndefined();
    expect(sniffImageType(bytes("GIF8"))).toBeUndefined();
    expect(sniffImageType(new Uint8Array())).toBeUndefined();
  });
});

describe("imagePartOf", () => {
  it("types the bytes by what they are, whatever type was declared", () => {
    expect(imagePartOf(PNG, "image/jpeg")?.mimeType).toBe("image/png");
    expect(imagePartOf(JPEG, "image/png")?.mimeType).toBe("image/jpeg");
    expect(imagePartOf(WEBP)?.mimeType).toBe("image/webp");
  });

  it("encodes the bytes as standard base64", () => {
    expect(imagePartOf(GIF89)).toEqual({ mimeType: "image/gif", data: btoa(String.fromCharCode(...GIF89)) });
  });

  it("falls back to a declared supported type when the bytes are not recognised, normalising it", () => {
    expect(imagePartOf(bytes("??"), "image/PNG")?.mimeType).toBe("image/png");
    expect(imagePartOf(bytes("??"), "image/jpg")?.mimeType).toBe("image/jpeg");
    expect(imagePartOf(bytes("??"), "image/webp; q=1")?.mimeType).toBe("image/webp");
  });

  it("refuses unrecognised bytes without a supported declared type, and no bytes at all", () => {
    expect(imagePartOf(bytes("??"))).toBeUndefined();
    expect(imagePartOf(bytes("<svg/>"), "image/svg+xml")).toBeUndefined();
    expect(imagePartOf(new Uint8Array(), "image/png")).toBeUndefined();
  });
});

describe("forModelVision", () => {
  const model = (vision?: boolean): ModelConfig => ({
    name: "m",
    provider: "openai-chat",
    baseUrl: "http://x",
    apiKey: "k",
    model: "m",
    contextWindow: 1000,
    ...(vision !== undefined && { vision }),
  });
  const image = { mimeType: "image/png", data: "AAAA" };
  const request = (vision?: boolean): ModelRequest => ({
    model: model(vision),
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "look", images: [image] },
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "Read", arguments: "{}" }] },
      { role: "tool", toolCallId: "c", name: "Read", content: "", images: [image, { mimeType: "image/gif", data: "BBBB" }] },
    ],
    tools: [],
    signal: new AbortController().signal,
  });

  it("leaves the request alone for a model with vision (the default)", () => {
    const withVision = request();
    expect(forModelVision(withVision)).toBe(withVision);
    const explicit = request(true);
    expect(forModelVision(explicit)).toBe(explicit);
  });

  it("turns every image into a short note in its message's text for a model without vision", () => {
    const { messages } = forModelVision(request(false));
    expect(messages[1]).toEqual({
      role: "user",
      content: "look\n\n[An image (image/png) was left out: this model does not take images.]",
    });
    expect(messages[3]).toEqual({
      role: "tool",
      toolCallId: "c",
      name: "Read",
      content:
        "[An image (image/png) was left out: this model does not take images.]\n[An image (image/gif) was left out: this model does not take images.]",
    });
    expect(messages[0]).toEqual({ role: "system", content: "sys" });
  });
});

describe("withinImageBudget", () => {
  const model: ModelConfig = { name: "m", provider: "openai-chat", baseUrl: "http://x", apiKey: "k", model: "m", contextWindow: 1000 };
  const png = (n: number, chars = 8) => ({ mimeType: "image/png", data: String(n).padStart(chars, "A") });
  const request = (messages: ChatMessage[]): ModelRequest => ({ model, messages, tools: [], signal: new AbortController().signal });
  /** One user message per image, image n in message n. */
  const oneEach = (count: number, chars?: number): ChatMessage[] =>
    Array.from({ length: count }, (_, n) => ({ role: "user", content: `m${n}`, images: [png(n, chars)] }));
  const NOTE = "[An earlier image (image/png) was left out: one request carries the newest 20 images at most, 20 MB in all.]";
  const imageCount = (messages: ChatMessage[]) =>
    messages.reduce((n, m) => n + ((m.role === "user" || m.role === "tool") && m.images ? m.images.length : 0), 0);

  it("leaves a request of at most 20 images and 20 MB of them alone", () => {
    const within = request(oneEach(20));
    expect(withinImageBudget(within)).toBe(within);
  });

  it("sends the newest 20 images and puts a note in place of each older one", () => {
    const { messages } = withinImageBudget(request(oneEach(22)));
    expect(imageCount(messages)).toBe(20);
    expect(messages[0]).toEqual({ role: "user", content: `m0\n\n${NOTE}` });
    expect(messages[1]).toEqual({ role: "user", content: `m1\n\n${NOTE}` });
    expect(messages[2]).toEqual(oneEach(22)[2]);
  });

  it("keeps the newer images of a message the cut goes through", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "", images: [png(100), png(101)] }, ...oneEach(19)];
    const [first] = withinImageBudget(request(messages)).messages;
    expect(first).toEqual({ role: "user", content: NOTE, images: [png(101)] });
  });

  it("leaves out the older images once the newest add up to 20 MB", () => {
    const { messages } = withinImageBudget(request(oneEach(3, 8_000_000)));
    expect(messages[0]).toEqual({ role: "user", content: `m0\n\n${NOTE}` });
    expect(imageCount(messages)).toBe(2);
  });

  it("keeps an image left out on every later request, so the request up to it stays the same", () => {
    const before = withinImageBudget(request(oneEach(21))).messages;
    const after = withinImageBudget(request(oneEach(22))).messages;
    expect(after[0]).toEqual(before[0]);
    expect(JSON.stringify(after.slice(2, 21))).toBe(JSON.stringify(before.slice(2, 21)));
  });
});
