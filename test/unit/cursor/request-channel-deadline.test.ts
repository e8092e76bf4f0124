// A KV wait's deadline measures the client's silence (src/cursor/agent/request-channel.ts):
// a sign of life starts it again, so a slow client still receiving large blobs is not cut off,
// and a silent one still fails at the deadline.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type KvRequest, KvTimeoutError, RequestChannel } from "../../../src/cursor/agent/request-channel.ts";

const blob: KvRequest = { case: "setBlobArgs", value: { blobId: new Uint8Array([1]), blobData: new Uint8Array([2]) } };

describe("KV wait deadlines", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("starts the deadline again at each sign of life from the client", async () => {
    const channel = new RequestChannel(() => undefined, new AbortController().signal);
    const reply = channel.kv(blob, 1_000);
    let outcome: unknown;
    reply.then(
      () => (outcome = "replied"),
      (err: unknown) => (outcome = err),
    );
    await vi.advanceTimersByTimeAsync(900);
    channel.clientAlive();
    await vi.advanceTimersByTimeAsync(900);
    expect(outcome).toBeUndefined();
    channel.clientAlive();
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome).toBeUndefined();
    // Then silence: the deadline passes.
    await vi.advanceTimersByTimeAsync(2);
    expect(outcome).toBeInstanceOf(KvTimeoutError);
  });

  it("fails a wait whose client stays silent at its deadline", async () => {
    const channel = new RequestChannel(() => undefined, new AbortController().signal);
    const reply = channel.kv(blob, 500);
    const failed = expect(reply).rejects.toBeInstanceOf(KvTimeoutError);
    await vi.advanceTimersByTimeAsync(501);
    await failed;
  });
});
