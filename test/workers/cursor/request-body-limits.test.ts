// Request bodies are bounded while they stream (docs/protocol.md#limits): a gzip bomb
// stops inflating at the cap, a chunked body stops being read at the cap, and in both
// cases the sender's stream is cancelled instead of being read to its end.
import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { encodeEnvelope, FLAG_COMPRESSED, FRAME_MAX_BYTES } from "../../../src/proto/connect/envelope.ts";
import { BASE } from "../../support/cursor-client.ts";

const MIB = 1024 * 1024;

/** `mib` MiB of zeros, gzipped: about 1 KiB on the wire per MiB inflated. */
async function gzipBomb(mib: number): Promise<Uint8Array> {
  let sent = 0;
  const zeros = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ >= mib) controller.close();
      else controller.enqueue(new Uint8Array(MIB));
    },
  });
  return new Uint8Array(await new Response(zeros.pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
}

/** A request body that hands out `total` bytes only as they are pulled, counting them. */
function countedBody(total: number, chunkBytes: number, bytesAt: (offset: number, length: number) => Uint8Array) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (seen.pulled >= total) {
          controller.close();
          return;
        }
        const chunk = bytesAt(seen.pulled, Math.min(chunkBytes, total - seen.pulled));
        seen.pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

function bidiAppendRaw(body: ReadableStream<Uint8Array>, headers: Record<string, string>): Promise<Response> {
  return exports.default.fetch(`${BASE}/aiserver.v1.BidiService/BidiAppend`, {
    method: "POST",
    headers: { authorization: "Bearer test-token", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("request body limits", () => {
  it("refuses a gzip bomb BidiAppend with resource_exhausted and stops reading it after about the cap's worth", async () => {
    const bomb = await gzipBomb(128);
    const { body, seen } = countedBody(bomb.byteLength, 4096, (at, n) => bomb.slice(at, at + n));
    const res = await bidiAppendRaw(body, { "content-type": "application/proto", "content-encoding": "gzip" });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { code: string }).code).toBe("resource_exhausted");
    // 32 MiB of output is about a quarter of this bomb; inflating it whole would pull all of it.
    expect(seen.pulled).toBeLessThan(bomb.byteLength / 2);
    expect(seen.cancelled).toBe(true);
  });

  it("refuses a compressed envelope that inflates past the cap, and stops reading it early", async () => {
    const bomb = await gzipBomb(128);
    const framed = encodeEnvelope(FLAG_COMPRESSED, bomb);
    const { body, seen } = countedBody(framed.byteLength, 4096, (at, n) => framed.slice(at, at + n));
    const res = await bidiAppendRaw(body, { "content-type": "application/connect+proto", "connect-content-encoding": "gzip" });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { code: string }).code).toBe("resource_exhausted");
    expect(seen.pulled).toBeLessThan(framed.byteLength / 2);
    expect(seen.cancelled).toBe(true);
  });

  it("refuses a chunked body larger than the cap after reading about the cap, and cancels the sender", async () => {
    const chunk = 64 * 1024;
    const { body, seen } = countedBody(3 * FRAME_MAX_BYTES, chunk, (_at, n) => new Uint8Array(n));
    const res = await bidiAppendRaw(body, { "content-type": "application/proto" });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { code: string; message: string }).message).toMatch(/request body too large/);
    expect(seen.pulled).toBeLessThanOrEqual(FRAME_MAX_BYTES + 4 * chunk);
    expect(seen.cancelled).toBe(true);
  });

  it("still accepts a compressed envelope of a normal size, and refuses one cut short with invalid_argument", async () => {
    const gzipped = new Uint8Array(
      await new Response(new Blob([new Uint8Array(0)]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
    );
    const send = (bytes: Uint8Array) =>
      exports.default.fetch(`${BASE}/aiserver.v1.NetworkService/IsConnected`, {
        method: "POST",
        headers: { authorization: "Bearer test-token", "content-type": "application/connect+proto", "connect-content-encoding": "gzip" },
        body: bytes,
      });
    const ok = await send(encodeEnvelope(FLAG_COMPRESSED, gzipped));
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const cut = await send(encodeEnvelope(FLAG_COMPRESSED, gzipped).slice(0, -3));
    expect(cut.status).toBe(400);
    expect(((await cut.json()) as { message: string }).message).toMatch(/incomplete envelope/);
  });

  it("refuses a chunked code-mode call larger than the cap after reading about the cap", async () => {
    const chunk = 64 * 1024;
    const { body, seen } = countedBody(3 * FRAME_MAX_BYTES, chunk, (_at, n) => new Uint8Array(n));
    const res = await exports.default.fetch(`${BASE}/codex.code_mode.v1.CodeModeHost/CloseSession`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/proto", "connect-protocol-version": "1" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { code: string }).code).toBe("resource_exhausted");
    expect(seen.pulled).toBeLessThanOrEqual(FRAME_MAX_BYTES + 4 * chunk);
  });

  it("ends a chunked streaming Execute whose envelope declares more than the cap with resource_exhausted in its end-stream, after reading one chunk", async () => {
    const chunk = 64 * 1024;
    // One envelope that declares 40 MB, sent without a Content-Length.
    const header = new Uint8Array([0, ...new Uint8Array(new Uint32Array([40_000_000]).buffer).reverse()]);
    const { body, seen } = countedBody(40_000_005, chunk, (at, n) =>
      at === 0 ? new Uint8Array([...header, ...new Uint8Array(n - 5)]) : new Uint8Array(n),
    );
    const res = await exports.default.fetch(`${BASE}/codex.code_mode.v1.CodeModeHost/Execute`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/connect+proto", "connect-protocol-version": "1" },
      body,
      duplex: "half",
    } as RequestInit);
    // A streaming call answers in Connect's streaming form: 200, then one end-stream envelope (flag 2).
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes[0]).toBe(2);
    const end = JSON.parse(new TextDecoder().decode(bytes.subarray(5))) as { error: { code: string } };
    expect(end.error.code).toBe("resource_exhausted");
    expect(seen.pulled).toBeLessThanOrEqual(2 * chunk);
  });

  it("refuses a chunked model-check body over 64 KiB with invalid_argument after reading about that much", async () => {
    const chunk = 16 * 1024;
    const { body, seen } = countedBody(16 * MIB, chunk, (_at, n) => new TextEncoder().encode(" ".repeat(n)));
    const res = await exports.default.fetch(`${BASE}/byok/v1/models/fake-model/check`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(400);
    expect((await res.json()) as { code: string; message: string }).toEqual({
      code: "invalid_argument",
      message: "the body is larger than 64 KiB",
    });
    expect(seen.pulled).toBeLessThanOrEqual(64 * 1024 + 4 * chunk);
    expect(seen.cancelled).toBe(true);
  });

  it("answers a RunSSE body that is not an envelope with invalid_argument, not resource_exhausted", async () => {
    const post = (body: Uint8Array) =>
      exports.default.fetch(`${BASE}/agent.v1.AgentService/RunSSE`, {
        method: "POST",
        headers: { authorization: "Bearer test-token", "content-type": "application/connect+proto" },
        body,
      });
    // Text where an envelope belongs: its first byte is not a flag, its "length" past the body.
    const garbage = new TextEncoder().encode("this is not a connect envelope at all");
    // A message flag with a length far past the 37 bytes sent.
    const overlong = new Uint8Array([0, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3]);
    for (const body of [garbage, overlong]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe("invalid_argument");
    }
  });

  it("refuses a chunked admin-API body over 64 KiB with 400 invalid_argument, not a 500", async () => {
    const chunk = 16 * 1024;
    const { body } = countedBody(4 * MIB, chunk, (_at, n) => new TextEncoder().encode(" ".repeat(n)));
    const res = await exports.default.fetch(`${BASE}/api/v1/teams`, {
      method: "POST",
      headers: { authorization: "Bearer test-admin-token", "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_argument");
  });

  it("refuses a 40 MB code-mode Execute with resource_exhausted before answering 200", async () => {
    const res = await exports.default.fetch(`${BASE}/codex.code_mode.v1.CodeModeHost/Execute`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/connect+proto", "connect-protocol-version": "1" },
      body: new Uint8Array(40 * 1000 * 1000),
    });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { code: string }).code).toBe("resource_exhausted");
  });
});
