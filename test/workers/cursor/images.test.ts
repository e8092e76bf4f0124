// Images reach the model: attached to a user message (inline or as a client
// blob), returned by a Read of an image file; through each provider in its own
// format, in later turns, after recovery, and as a note for a model without vision.
import { describe, expect, it } from "vitest";
import type { AgentClientMessage, ConversationStateStructure } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { chatToolCalls, createScenario, httpError } from "../../support/fake-provider.ts";
import { appendOk, clientMessage, runRequest, startTurn, type FrameReader, type RunRequestOptions } from "../../support/cursor-client.ts";
import { readData, readInBlob } from "../../support/exec-replies.ts";
import { collect, providerHarness } from "../../support/provider-harness.ts";
import { createProvider, type ChatMessage } from "../../../src/provider/index.ts";
import { messagesPrefix } from "../../support/prefix.ts";
import { imagesIn, textResponse, toolCallResponse, toolResultText, userTexts, WIRES } from "../../support/provider-bodies.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
const uri = (mime: string, bytes: Uint8Array) => `data:${mime};base64,${btoa(String.fromCharCode(...bytes))}`;
const PNG_URI = uri("image/png", PNG);
const JPEG_URI = uri("image/jpeg", JPEG);

/** Declared as JPEG: the bytes (PNG) decide the type sent to the provider. */
function attachedImage(data: Uint8Array = PNG): NonNullable<RunRequestOptions["images"]>[number] {
  return { uuid: crypto.randomUUID(), mimeType: "image/jpeg", dataOrBlobId: { case: "data", value: data } };
}

/** A run_request for a conversation this server has never seen, carrying the client's copy of it. */
function recoveringRequest(state: ConversationStateStructure, opts: RunRequestOptions): AgentClientMessage {
  const message = runRequest(opts);
  if (message.message.case !== "runRequest") throw new Error("unreachable");
  message.message.value.conversationState = state;
  return message;
}

function lastCheckpoint(reader: FrameReader): ConversationStateStructure {
  const state = reader.checkpoints().at(-1);
  if (!state) throw new Error("no checkpoint");
  return state;
}

describe.each(WIRES)("images through $wire", ({ wire, model }) => {
  it("sends an image attached to the user message in the provider's format, typed by its bytes", async () => {
    const scenario = await createScenario([textResponse(wire, ["A tiny image."])]);
    const { reader } = await startTurn({
      conversationId: crypto.randomUUID(),
      text: `what is this? ${scenario.marker}`,
      model,
      images: [attachedImage()],
    });
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    expect(imagesIn(wire, request!.body)).toEqual([PNG_URI]);
    expect(userTexts(wire, request!.body).at(-1)).toBe(`what is this? ${scenario.marker}`);
  });

  it("keeps the image in later turns and in a conversation recovered from the client's conversation_state", async () => {
    const scenario = await createScenario([textResponse(wire, ["one"]), textResponse(wire, ["two"]), textResponse(wire, ["three"])]);
    const conversationId = crypto.randomUUID();
    const first = await startTurn({ conversationId, text: `look ${scenario.marker}`, model, images: [attachedImage()] });
    expect(await first.reader.end()).toEqual({});
    const second = await startTurn({ conversationId, text: "and again?", model });
    expect(await second.reader.end()).toEqual({});

    // A conversation object that has never seen it continues from the client's copy.
    const message = recoveringRequest(lastCheckpoint(second.reader), { conversationId: crypto.randomUUID(), text: "still there?", model });
    const third = await startTurn(
      { conversationId: "", text: "", message },
      { blobs: new Map([...first.reader.blobs, ...second.reader.blobs]) },
    );
    expect(await third.reader.end()).toEqual({});
    expect(third.reader.text()).toBe("three");

    const requests = await scenario.requests(3);
    for (const request of requests) expect(imagesIn(wire, request.body)).toEqual([PNG_URI]);
    if (wire === "openai-chat") {
      expect(requests[1]!.body.startsWith(messagesPrefix(requests[0]!.body))).toBe(true);
      expect(requests[2]!.body.startsWith(messagesPrefix(requests[1]!.body))).toBe(true);
    }
  });

  it("gives the model the image a Read of an image file returns", async () => {
    const scenario = await createScenario([
      toolCallResponse(wire, { id: "call-img", name: "Read", args: ['{"path":"/shot.jpg"}'] }),
      textResponse(wire, ["A screenshot."]),
    ]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `read the screenshot ${scenario.marker}`, model },
      { onExec: (exec, r) => r.send(readData(exec, JPEG)) },
    );
    expect(await reader.end()).toEqual({});
    const [first, second] = await scenario.requests(2);
    expect(imagesIn(wire, first!.body)).toEqual([]);
    expect(imagesIn(wire, second!.body)).toEqual([JPEG_URI]);
    expect(toolResultText(wire, second!.body, "call-img")).toBe(`/shot.jpg is an image (image/jpeg, ${JPEG.length} bytes), attached.`);
    const completed = reader.updates().find((u) => u.case === "toolCallCompleted")?.value as { toolCall: { tool: { case: string } } };
    expect(completed.toolCall.tool.case).toBe("readToolCall");
  });
});

describe.each(WIRES)("a model without vision through $wire", ({ wire }) => {
  it("gets a short note in the message's text instead of each image, and no image part", async () => {
    const { aModel } = providerHarness({ name: "blind", provider: wire, apiKey: "sk-blind", model: "blind-1", contextWindow: 8000 });
    const scenario = await createScenario([textResponse(wire, ["I cannot see it."])]);
    const image = { mimeType: "image/png", data: btoa(String.fromCharCode(...PNG)) };
    const messages: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: `look ${scenario.marker}`, images: [image] },
      { role: "assistant", content: "", toolCalls: [{ id: "call-img", name: "Read", arguments: '{"path":"/shot.jpg"}' }] },
      {
        role: "tool",
        toolCallId: "call-img",
        name: "Read",
        content: "/shot.jpg is an image",
        images: [{ ...image, mimeType: "image/jpeg" }],
      },
    ];
    const model = aModel({ vision: false });
    await collect(createProvider(wire).stream({ model, messages, tools: [], signal: new AbortController().signal }));

    const [request] = await scenario.requests(1);
    const note = (mime: string) => `[An image (${mime}) was left out: this model does not take images.]`;
    expect(imagesIn(wire, request!.body)).toEqual([]);
    expect(userTexts(wire, request!.body)[0]).toBe(`look ${scenario.marker}\n\n${note("image/png")}`);
    expect(toolResultText(wire, request!.body, "call-img")).toBe(`/shot.jpg is an image\n\n${note("image/jpeg")}`);
  });
});

describe("images", () => {
  it("reads an image attached by blob id from the client's blobs with get_blob", async () => {
    const scenario = await createScenario([textResponse("openai-chat", ["two images"])]);
    const id = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const [pngId, jpegId] = [await id(PNG), await id(JPEG)];
    const { reader } = await startTurn(
      {
        conversationId: crypto.randomUUID(),
        text: `two ${scenario.marker}`,
        images: [
          { uuid: "a", mimeType: "image/png", dataOrBlobId: { case: "blobId", value: pngId } },
          { uuid: "b", mimeType: "image/jpeg", dataOrBlobId: { case: "blobIdWithData", value: { blobId: jpegId } } },
        ],
      },
      {
        blobs: new Map([
          [toHex(pngId), PNG],
          [toHex(jpegId), JPEG],
        ]),
      },
    );
    expect(await reader.end()).toEqual({});
    const asked = reader.frames.flatMap((f) =>
      f.kind === "message" && f.message.message.case === "kvServerMessage" && f.message.message.value.message.case === "getBlobArgs"
        ? [toHex(f.message.message.value.message.value.blobId)]
        : [],
    );
    expect(asked).toEqual([toHex(pngId), toHex(jpegId)]);
    const [request] = await scenario.requests(1);
    expect(imagesIn("openai-chat", request!.body)).toEqual([PNG_URI, JPEG_URI]);
  });

  it("reads a file whose content the client left in a blob (output_blob_id): an image as an image, text as text", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "call-png", name: "Read", args: ['{"path":"/a.png"}'] },
        { id: "call-txt", name: "Read", args: ['{"path":"/b.txt"}'] },
      ]),
      textResponse("openai-chat", ["read both"]),
    ]);
    const text = new TextEncoder().encode("line one\nline two\n");
    const ids = new Map<string, Uint8Array>();
    for (const [path, bytes] of [
      ["/a.png", PNG],
      ["/b.txt", text],
    ] as const) {
      ids.set(path, new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
    }
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `blobs ${scenario.marker}` },
      {
        blobs: new Map([
          [toHex(ids.get("/a.png")!), PNG],
          [toHex(ids.get("/b.txt")!), text],
        ]),
        onExec: (exec, r) => {
          const path = exec.message.case === "readArgs" ? exec.message.value.path : "";
          return r.send(readInBlob(exec, ids.get(path)!, path === "/a.png" ? PNG.length : text.length));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    expect(imagesIn("openai-chat", second!.body)).toEqual([PNG_URI]);
    expect(toolResultText("openai-chat", second!.body, "call-png")).toBe(`/a.png is an image (image/png, ${PNG.length} bytes), attached.`);
    expect(toolResultText("openai-chat", second!.body, "call-txt")).toBe("     1|line one\n     2|line two");
  });

  it("stores an image larger than a SQLite row and sends it byte for byte in later turns", async () => {
    const big = new Uint8Array(1_600_000); // 2.1 MB as base64
    big.set(PNG);
    for (let i = PNG.length; i < big.length; i++) big[i] = (i * 31) & 0xff;
    const scenario = await createScenario([textResponse("openai-chat", ["big"]), textResponse("openai-chat", ["still big"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `a large one ${scenario.marker}`, images: [attachedImage(big)] });
    expect(await one.reader.end(20_000)).toEqual({});
    const two = await startTurn({ conversationId, text: "again" });
    expect(await two.reader.end(20_000)).toEqual({});
    const [a, b] = await scenario.requests(2);
    const [image] = imagesIn("openai-chat", a!.body);
    expect(image?.length).toBeGreaterThan(2_100_000);
    expect(image).toBe(`data:image/png;base64,${Buffer.from(big).toString("base64")}`);
    expect(b!.body.startsWith(messagesPrefix(a!.body))).toBe(true);
  });

  it("refuses an attachment that is not a PNG, JPEG, GIF or WebP image with invalid_argument, before any model call", async () => {
    const scenario = await createScenario([textResponse("openai-chat", ["never"])]);
    const svg = new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>");
    const { reader } = await startTurn({
      conversationId: crypto.randomUUID(),
      text: `vector ${scenario.marker}`,
      images: [{ uuid: "s", mimeType: "image/svg+xml", dataOrBlobId: { case: "data", value: svg } }],
    });
    const end = await reader.end();
    expect(end.error).toMatchObject({ code: "invalid_argument", message: "image 1 of the message is not a PNG, JPEG, GIF or WebP image" });
    expect(await scenario.requests(0)).toHaveLength(0);
  });
});

describe("a model that refuses images", () => {
  it("ends the run with the provider's refusal and a hint to set vision: false, without prompt text or key", async () => {
    const refusal = "Failed to deserialize the JSON body: unknown variant `image_url`, expected `text`";
    const scenario = await createScenario([httpError(400, refusal), httpError(400, refusal)]);
    const image = await startTurn({ conversationId: crypto.randomUUID(), text: `see this ${scenario.marker}`, images: [attachedImage()] });
    const withImage = (await image.reader.end()).error;
    expect(withImage?.code).toBe("unavailable");
    expect(withImage?.message).toBe(
      `fake-model: provider returned HTTP 400: ${refusal} (the request carried images; if this model does not take images, set "vision": false for it in BYOK_MODELS)`,
    );
    expect(withImage?.message).not.toContain("see this");
    expect(withImage?.message).not.toContain("sk-test-never-logged");

    const text = await startTurn({ conversationId: crypto.randomUUID(), text: `no image ${scenario.marker}` });
    expect((await text.reader.end()).error?.message).toBe(`fake-model: provider returned HTTP 400: ${refusal}`);
  });
});

describe("images of runtime messages", () => {
  const userMessage = (text: string, messageId: string) => ({
    text,
    messageId,
    mode: 1,
    selectedContext: { selectedImages: [attachedImage()] },
  });

  it("gives the model the image of injected user context", async () => {
    const scenario = await createScenario([{ steps: [{ hang: true }] }, textResponse("openai-chat", ["I see it"])]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `wait ${scenario.marker}` });
    await scenario.requests(1);
    await reader.send(
      clientMessage({
        message: {
          case: "conversationAction",
          value: {
            action: {
              case: "injectContextAction",
              value: {
                injectionId: "inj-img",
                expectedRunId: requestId,
                payload: { case: "userContext", value: { userMessage: userMessage("and this picture", "inj-user") } },
              },
            },
          },
        },
      }),
    );
    expect(await reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    expect(imagesIn("openai-chat", second!.body)).toEqual([PNG_URI]);
    expect(userTexts("openai-chat", second!.body).at(-1)).toBe("and this picture");
  });

  it("gives the next run the image of a user message that arrived after the turn ended", async () => {
    const scenario = await createScenario([textResponse("openai-chat", ["one"]), textResponse("openai-chat", ["two"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `first ${scenario.marker}` });
    expect(await one.reader.end()).toEqual({});
    await appendOk(
      one.requestId,
      "next",
      clientMessage({
        message: {
          case: "conversationAction",
          value: { action: { case: "userMessageAction", value: { userMessage: userMessage("a late picture", "late-img") } } },
        },
      }),
    );
    const two = await startTurn({ conversationId, text: "next question" });
    expect(await two.reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    expect(imagesIn("openai-chat", second!.body)).toEqual([PNG_URI]);
  });
});
