// Properties of the Connect envelope decoder and end-stream frame
// (src/proto/connect/envelope.ts, end-stream.ts): any cut of valid frames decodes
// to the frames, a truncation or garbage is an AppError, never another throw.
import fc from "fast-check";
import { expect } from "vitest";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { encodeEndStream } from "../../../src/proto/connect/end-stream.ts";
import { EndStreamWatcher, EnvelopeDecoder, encodeEnvelope, FLAG_END_STREAM, type Envelope } from "../../../src/proto/connect/envelope.ts";
import { AppError, Code, type CodeName } from "../../../src/core/errors.ts";
import { chunksOf, concatBytes } from "../support/chunks.ts";
import type { FuzzProperty } from "../support/fuzz-property.ts";

const frame: fc.Arbitrary<Envelope> = fc.record({ flags: fc.integer({ min: 0, max: 255 }), data: fc.uint8Array({ maxLength: 300 }) });
const frames = fc.array(frame, { maxLength: 8 });
/** Valid frames as one byte stream, and an arbitrary cut of it into chunks. */
const cutStream = frames.chain((list) => {
  const bytes = concatBytes(list.map((f) => encodeEnvelope(f.flags, f.data)));
  return fc.tuple(fc.constant(list), fc.constant(bytes), chunksOf(bytes));
});

/** Every chunk through one decoder: the frames it yields, or the error it threw. */
function decodeChunks(chunks: Uint8Array[], maxBytes?: number): { frames: Envelope[]; error?: unknown } {
  const decoder = new EnvelopeDecoder(maxBytes);
  const out: Envelope[] = [];
  try {
    for (const chunk of chunks) out.push(...decoder.push(chunk));
    decoder.finish();
    return { frames: out };
  } catch (error) {
    return { frames: out, error };
  }
}

function plain(list: Envelope[]): { flags: number; data: number[] }[] {
  return list.map((f) => ({ flags: f.flags, data: [...f.data] }));
}

const CODES: CodeName[] = [
  "canceled",
  "invalid_argument",
  "deadline_exceeded",
  "resource_exhausted",
  "internal",
  "unavailable",
  "data_loss",
];

export const envelopeProperties: FuzzProperty[] = [
  {
    name: "valid frames cut anywhere decode to the same frames, in order, with nothing left over",
    runs: 300,
    property: fc.property(cutStream, ([list, , chunks]) => {
      const { frames: out, error } = decodeChunks(chunks);
      expect(error).toBeUndefined();
      expect(plain(out)).toEqual(plain(list));
    }),
  },
  {
    name: "the end-stream watcher sees the end-stream flag under any cut exactly when a frame carries it",
    runs: 300,
    property: fc.property(cutStream, ([list, , chunks]) => {
      const watcher = new EndStreamWatcher();
      for (const chunk of chunks) watcher.push(chunk);
      expect(watcher.seen).toBe(list.some((f) => (f.flags & FLAG_END_STREAM) !== 0));
    }),
  },
  {
    name: "a truncated stream yields a prefix of its frames, then an invalid_argument AppError unless cut between frames",
    runs: 300,
    property: fc.property(
      cutStream.chain(([list, bytes]) =>
        fc.tuple(fc.constant(list), fc.constant(bytes), fc.nat({ max: Math.max(0, bytes.byteLength - 1) })),
      ),
      ([list, bytes, cut]) => {
        const { frames: out, error } = decodeChunks([bytes.subarray(0, cut)]);
        expect(plain(out)).toEqual(plain(list.slice(0, out.length)));
        const boundary = concatBytes(out.map((f) => encodeEnvelope(f.flags, f.data))).byteLength === cut;
        if (boundary) expect(error).toBeUndefined();
        else {
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).code).toBe(Code.InvalidArgument);
        }
      },
    ),
  },
  {
    name: "garbage bytes cut anywhere give frames or an AppError (invalid_argument, or resource_exhausted past the cap), never another throw",
    runs: 300,
    property: fc.property(
      fc.uint8Array({ maxLength: 600 }).chain((bytes) => chunksOf(bytes)),
      fc.integer({ min: 0, max: 1024 }),
      (chunks, maxBytes) => {
        const { frames: out, error } = decodeChunks(chunks, maxBytes);
        for (const f of out) expect(f.data.byteLength).toBeLessThanOrEqual(maxBytes);
        if (error === undefined) return;
        expect(error).toBeInstanceOf(AppError);
        expect([Code.InvalidArgument, Code.ResourceExhausted]).toContain((error as AppError).code);
      },
    ),
  },
  {
    name: "an end-stream frame carries its error's code, message and details, and decodes as one end-stream envelope",
    runs: 200,
    property: fc.property(
      fc.option(
        fc.record({
          code: fc.constantFrom(...CODES),
          message: fc.string({ unit: "binary", maxLength: 40 }),
          details: fc.array(fc.record({ type: fc.string({ maxLength: 20 }), value: fc.uint8Array({ maxLength: 40 }) }), { maxLength: 3 }),
        }),
        { nil: undefined },
      ),
      fc.integer({ min: 1, max: 8 }),
      (init, cuts) => {
        const error = init && new AppError(init.code, init.message, init.details);
        const bytes = encodeEndStream(error);
        const pieces = [];
        const step = Math.max(1, Math.ceil(bytes.byteLength / cuts));
        for (let i = 0; i < bytes.byteLength; i += step) pieces.push(bytes.subarray(i, i + step));
        const { frames: out, error: thrown } = decodeChunks(pieces);
        expect(thrown).toBeUndefined();
        expect(out).toHaveLength(1);
        expect(out[0]!.flags).toBe(FLAG_END_STREAM);
        const json = JSON.parse(new TextDecoder().decode(out[0]!.data));
        if (!init) {
          expect(json).toEqual({});
          return;
        }
        expect(json.error.code).toBe(init.code);
        expect(json.error.message ?? "").toBe(init.message);
        const details = (json.error.details ?? []).map((d: { type: string; value: string }) => ({
          type: d.type,
          value: [...base64Decode(d.value)],
        }));
        expect(details).toEqual(init.details.map((d) => ({ type: d.type, value: [...d.value] })));
      },
    ),
  },
];
