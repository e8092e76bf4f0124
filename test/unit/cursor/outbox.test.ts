// A request's outbox (src/cursor/session/outbox.ts): replay, live frames, one end-stream,
// and bodies pulled so that frames a reader has not yet asked for go out joined.
import { describe, expect, it } from "vitest";
import { Outbox } from "../../../src/cursor/session/outbox.ts";
import { EnvelopeDecoder, encodeEnvelope, FLAG_END_STREAM, FLAG_MESSAGE } from "../../../src/proto/connect/envelope.ts";

const frame = (n: number, size = 8) => encodeEnvelope(FLAG_MESSAGE, new Uint8Array(size).fill(n % 256));

/** Reads a body to its end: the chunks as they came, and the frames in them. */
async function readAll(stream: ReadableStream<Uint8Array>) {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const decoder = new EnvelopeDecoder();
  const frames = chunks.flatMap((c) => [...decoder.push(c)]);
  decoder.finish();
  return { chunks, frames };
}

describe("the outbox", () => {
  it("gives a reader that keeps up one frame per chunk", async () => {
    const outbox = new Outbox();
    const reader = outbox.subscribe().stream.getReader();
    for (let n = 0; n < 3; n++) {
      const next = reader.read();
      outbox.push(frame(n));
      expect((await next).value).toEqual(frame(n));
    }
    outbox.end();
    const last = await reader.read();
    expect(last.value?.[0]).toBe(FLAG_END_STREAM);
    expect((await reader.read()).done).toBe(true);
  });

  it("joins the frames written while its reader was not reading into one chunk, in order", async () => {
    const outbox = new Outbox();
    const { stream } = outbox.subscribe();
    for (let n = 0; n < 5; n++) outbox.push(frame(n));
    outbox.end();
    const { chunks, frames } = await readAll(stream);
    expect(chunks).toHaveLength(1);
    expect(frames.map((f) => f.flags)).toEqual([...Array(5).fill(FLAG_MESSAGE), FLAG_END_STREAM]);
    expect(frames.slice(0, 5).map((f) => f.data[0])).toEqual([0, 1, 2, 3, 4]);
  });

  it("sends a backlog larger than 1 MiB in chunks of whole frames of at most 1 MiB each", async () => {
    const outbox = new Outbox();
    const { stream } = outbox.subscribe();
    for (let n = 0; n < 10; n++) outbox.push(frame(n, 300 * 1024));
    outbox.end();
    const { chunks, frames } = await readAll(stream);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.byteLength).toBeLessThanOrEqual(1024 * 1024);
    expect(frames).toHaveLength(11);
    expect(frames.slice(0, 10).map((f) => f.data[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("replays everything and the one end-stream to a subscriber that comes after the end, then closes", async () => {
    const outbox = new Outbox();
    outbox.push(frame(1));
    outbox.end();
    expect(outbox.end()).toBe(false);
    const { frames } = await readAll(outbox.subscribe().stream);
    expect(frames.map((f) => f.flags)).toEqual([FLAG_MESSAGE, FLAG_END_STREAM]);
  });

  it("detaches a reader that cancels while it waits for a frame, and writes nothing more to it", async () => {
    const detached: number[] = [];
    const outbox = new Outbox((remaining) => detached.push(remaining));
    const reader = outbox.subscribe().stream.getReader();
    const pending = reader.read();
    await reader.cancel();
    expect((await pending).done).toBe(true);
    expect(detached).toEqual([0]);
    expect(outbox.subscriberCount).toBe(0);
    outbox.push(frame(1)); // no reader is left: nothing to throw, nothing kept for it
    outbox.end();
  });
});
