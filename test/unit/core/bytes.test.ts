// Text forms of bytes (src/core/bytes.ts): each round-trips, and text that is not of the form
// decodes to undefined instead of throwing.
import { describe, expect, it } from "vitest";
import { fromBase64, fromHex, toBase64, toBase64Url, toHex } from "../../../src/core/bytes.ts";

const BYTES = new Uint8Array([0, 1, 0xfb, 0xff, 0x3e, 0x3f, 0x80]);

describe("bytes as text", () => {
  it("round-trips hex, base64 and base64url", () => {
    expect(fromHex(toHex(BYTES))).toEqual(BYTES);
    expect(fromBase64(toBase64(BYTES))).toEqual(BYTES);
    expect(fromBase64(toBase64Url(BYTES))).toEqual(BYTES);
    expect(toBase64Url(BYTES)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("answers undefined for text that is not hex or base64", () => {
    expect(fromHex("abc")).toBeUndefined();
    expect(fromHex("zz")).toBeUndefined();
    expect(fromBase64("x")).toBeUndefined();
    expect(fromBase64("AAAAA")).toBeUndefined();
  });
});
