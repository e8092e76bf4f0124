// Arbitrary ways to cut a byte stream into chunks, as HTTP and TCP cut them:
// anywhere, including inside a frame header or a UTF-8 sequence.
import fc from "fast-check";

/** `bytes` cut at up to `maxCuts` arbitrary places; the chunks join back to `bytes`. */
export function chunksOf(bytes: Uint8Array, maxCuts = 12): fc.Arbitrary<Uint8Array[]> {
  if (bytes.byteLength < 2) return fc.constant([bytes]);
  return fc.uniqueArray(fc.integer({ min: 1, max: bytes.byteLength - 1 }), { maxLength: maxCuts }).map((cuts) => {
    const points = [0, ...cuts.sort((a, b) => a - b), bytes.byteLength];
    return points.slice(1).map((end, i) => bytes.subarray(points[i], end));
  });
}

/** Byte strings joined end to end. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
