// How images load and how many a provider request carries (docs/providers.md#images):
// a message's image blobs are read from the client at once, a request carries the
// newest 20 images with a note for each older one, and stored image data is read
// from SQLite once, not on every model cycle.
import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { describe, expect, it } from "vitest";
import { toHex } from "../../../src/core/bytes.ts";
import { conversationName } from "../../../src/core/object-names.ts";
import { ConversationStore } from "../../../src/cursor/store/conversation-store.ts";
import { createScenario } from "../../support/fake-provider.ts";
import { clientMessage, startTurn, type Frame } from "../../support/cursor-client.ts";
import { imagesIn, textResponse, userTexts } from "../../support/provider-bodies.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
/** A distinct small PNG per n. */
const png = (n: number) => new Uint8Array([...PNG, n]);

function getBlobRequests(frames: Frame[]): { id: number; blobId: string }[] {
  return frames.flatMap((f) =>
    f.kind === "message" && f.message.message.case === "kvServerMessage" && f.message.message.value.message.case === "getBlobArgs"
      ? [{ id: f.message.message.value.id, blobId: toHex(f.message.message.value.message.value.blobId) }]
      : [],
  );
}

describe("images per request", () => {
  it("asks the client for all of a message's image blobs at once, before any of them arrives", async () => {
    const scenario = await createScenario([textResponse("openai-chat", ["three images"])]);
    const blobs = new Map<string, Uint8Array>();
    const images = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const id = new Uint8Array(await crypto.subtle.digest("SHA-256", png(n)));
        blobs.set(toHex(id), png(n));
        return { uuid: `i${n}`, mimeType: "image/png", dataOrBlobId: { case: "blobId" as const, value: id } };
      }),
    );
    // The client answers no get_blob on its own: the test answers once all three are asked.
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `three ${scenario.marker}`, images },
      { missingBlob: "ignore" },
    );
    await reader.until(() => getBlobRequests(reader.frames).length === 3, "three get_blob requests");
    for (const { id, blobId } of getBlobRequests(reader.frames)) {
      await reader.send(
        clientMessage({
          message: { case: "kvClientMessage", value: { id, message: { case: "getBlobResult", value: { blobData: blobs.get(blobId)! } } } },
        }),
      );
    }
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    expect(imagesIn("openai-chat", request!.body)).toHaveLength(3);
  });

  it("sends the newest 20 images of the conversation and a note in place of each older one", async () => {
    const scenario = await createScenario([textResponse("openai-chat", ["many"])]);
    const images = Array.from({ length: 21 }, (_, n) => ({
      uuid: `i${n}`,
      mimeType: "image/png",
      dataOrBlobId: { case: "data" as const, value: png(n) },
    }));
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `many ${scenario.marker}`, images });
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    const sent = imagesIn("openai-chat", request!.body);
    expect(sent).toHaveLength(20);
    expect(sent[0]).toBe(`data:image/png;base64,${btoa(String.fromCharCode(...png(1)))}`);
    expect(userTexts("openai-chat", request!.body).at(-1)).toBe(
      `many ${scenario.marker}\n\n[An earlier image (image/png) was left out: one request carries the newest 20 images at most, 20 MB in all.]`,
    );
  });

  it("reads a message's stored image data once, not again for every history read", async () => {
    const stub = env.CONVERSATION.getByName(conversationName("local", crypto.randomUUID()));
    const data = await runInDurableObject(stub, (_instance, state) => {
      const store = new ConversationStore(drizzle(state.storage));
      store.ensureConversation("c", "local");
      const image = { mimeType: "image/png", data: btoa(String.fromCharCode(...PNG)) };
      store.appendMessages("c", "run-1", [{ message: { role: "user", content: "look", images: [image] }, messageKey: "cursor:user:m1" }]);
      expect(store.history("c")[0]?.message).toMatchObject({ images: [image] });
      // Were the rows read again, the image would now come back empty.
      state.storage.sql.exec("DELETE FROM message_images");
      const again = store.history("c")[0]!.message;
      return again.role === "user" ? again.images?.[0]?.data : undefined;
    });
    expect(data).toBe(btoa(String.fromCharCode(...PNG)));
  });
});
