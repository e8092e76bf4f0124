// Images in Cursor's root messages: written as image parts, read back exactly
// from our own roots and best effort from other backends' roots.
import { describe, expect, it } from "vitest";
import { fromRootMessage, toRootMessage, type RootMessage } from "../../../src/cursor/agent/root-messages.ts";
import type { ChatMessage } from "../../../src/provider/types.ts";

const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const PNG_BASE64 = btoa(String.fromCharCode(...PNG_BYTES));

/** What the client stores and sends back: the root as JSON text. */
const roundTrip = (root: RootMessage): RootMessage => JSON.parse(JSON.stringify(root)) as RootMessage;

describe("root messages with images", () => {
  const message: ChatMessage = {
    role: "user",
    content: "what is this?",
    images: [
      { mimeType: "image/png", data: PNG_BASE64 },
      { mimeType: "image/gif", data: "R0lGODlh" },
    ],
  };

  it("write a user message's images as Cursor image parts, holding the data once", () => {
    const root = toRootMessage(message, "cursor:user:m1");
    expect(root.content).toEqual([
      { type: "text", text: "what is this?" },
      { type: "image", mimeType: "image/png", image: PNG_BASE64 },
      { type: "image", mimeType: "image/gif", image: "R0lGODlh" },
    ]);
    expect(JSON.stringify(root.providerOptions)).not.toContain(PNG_BASE64);
  });

  it("read our own root back to the same message, byte for byte", () => {
    const [read] = fromRootMessage(roundTrip(toRootMessage(message, "cursor:user:m1")));
    expect(read?.key).toBe("cursor:user:m1");
    expect(JSON.stringify(read?.message)).toBe(JSON.stringify(message));
  });

  it("keep a tool result's images in our own copy, since Cursor's tool-result part is text only", () => {
    const tool: ChatMessage = {
      role: "tool",
      toolCallId: "c1",
      name: "Read",
      content: "an image",
      images: [{ mimeType: "image/png", data: PNG_BASE64 }],
    };
    const root = toRootMessage(tool);
    expect(root.content).toEqual([{ type: "tool-result", toolCallId: "c1", toolName: "Read", result: "an image" }]);
    expect(JSON.stringify(fromRootMessage(roundTrip(root))[0]?.message)).toBe(JSON.stringify(tool));
  });

  it("keep a text-only user root as plain string content", () => {
    expect(toRootMessage({ role: "user", content: "hi" }).content).toBe("hi");
  });

  it("read other backends' image parts: base64 with mediaType, data URLs, and skip URLs and non-images", () => {
    const [read] = fromRootMessage({
      role: "user",
      content: [
        { type: "text", text: "see" },
        { type: "image", image: PNG_BASE64, mediaType: "image/png" },
        { type: "image", image: `data:image/jpeg;base64,${PNG_BASE64}` },
        { type: "image", image: "https://example.com/cat.png", mimeType: "image/png" },
        { type: "image", image: btoa("plain text"), mimeType: "text/plain" },
      ],
    });
    // The bytes are a PNG, whatever the data URL said.
    expect(read?.message).toEqual({
      role: "user",
      content: "see",
      images: [
        { mimeType: "image/png", data: PNG_BASE64 },
        { mimeType: "image/png", data: PNG_BASE64 },
      ],
    });
  });
});
