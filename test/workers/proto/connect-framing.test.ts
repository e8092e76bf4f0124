// Connect envelope framing and end-stream JSON, through the project's codec.
import { describe, expect, it } from "vitest";
import { AppError } from "../../../src/core/errors.ts";
import { encodeEndStream } from "../../../src/proto/connect/end-stream.ts";
import {
  decodeEnvelopes,
  EndStreamWatcher,
  EnvelopeDecoder,
  encodeEnvelope,
  FLAG_END_STREAM,
} from "../../../src/proto/connect/envelope.ts";

const bytes = (...values: number[]) => new Uint8Array(values);
/** The JSON payload of the end-stream frame the server writes. */
const endStreamJson = (error?: AppError) => JSON.parse(new TextDecoder().decode(decodeEnvelopes(encodeEndStream(error))[0]!.data));

describe("EnvelopeDecoder", () => {
  it("reassembles a frame split across chunks at every byte boundary", () => {
    const frame = encodeEnvelope(0, bytes(1, 2, 3, 4, 5, 6, 7));
    for (let cut = 1; cut < frame.length; cut++) {
      const decoder = new EnvelopeDecoder();
      expect(decoder.push(frame.slice(0, cut))).toEqual([]);
      const frames = decoder.push(frame.slice(cut));
      expect(frames).toHaveLength(1);
      expect([...frames[0]!.data]).toEqual([1, 2, 3, 4, 5, 6, 7]);
      decoder.finish();
    }
  });

  it("yields every frame of a chunk that carries several, in order", () => {
    const chunk = new Uint8Array([
      ...encodeEnvelope(0, bytes(1)),
      ...encodeEnvelope(0, bytes()),
      ...encodeEnvelope(FLAG_END_STREAM, new TextEncoder().encode("{}")),
    ]);
    const frames = new EnvelopeDecoder().push(chunk);
    expect(frames.map((f) => [f.flags, f.data.length])).toEqual([
      [0, 1],
      [0, 0],
      [FLAG_END_STREAM, 2],
    ]);
  });

  it("rejects input that ends inside a frame", () => {
    const frame = encodeEnvelope(0, bytes(1, 2, 3));
    expect(() => decodeEnvelopes(frame.slice(0, 6))).toThrow(/incomplete envelope/);
  });

  it("refuses a declared length above the limit before buffering it", () => {
    const decoder = new EnvelopeDecoder(16);
    const header = bytes(0, 0, 0, 1, 0);
    expect(() => decoder.push(header)).toThrow(AppError);
  });
});

describe("end-stream JSON", () => {
  it("is an empty object on success", () => {
    expect(endStreamJson()).toEqual({});
    const [frame] = decodeEnvelopes(encodeEndStream());
    expect(frame!.flags).toBe(FLAG_END_STREAM);
    expect(new TextDecoder().decode(frame!.data)).toBe("{}");
  });

  it("carries code, message and base64 details without padding on error", () => {
    const error = new AppError("unavailable", "provider down", [{ type: "aiserver.v1.ErrorDetails", value: bytes(8, 57) }]);
    expect(endStreamJson(error)).toEqual({
      error: { code: "unavailable", message: "provider down", details: [{ type: "aiserver.v1.ErrorDetails", value: "CDk" }] },
    });
  });
});

describe("EndStreamWatcher", () => {
  it("notices the end-stream frame however the bytes are split, and not before", () => {
    const stream = new Uint8Array([...encodeEnvelope(0, bytes(9, 9, 9)), ...encodeEndStream()]);
    for (let cut = 1; cut < stream.length; cut++) {
      const watcher = new EndStreamWatcher();
      watcher.push(stream.slice(0, cut));
      expect(watcher.seen).toBe(cut >= 13); // its 5-byte header occupies bytes 8..12
      watcher.push(stream.slice(cut));
      expect(watcher.seen).toBe(true);
    }
  });
});
