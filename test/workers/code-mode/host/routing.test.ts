// CodeModeHost through the worker: the bearer token, Connect and gRPC-web, the
// session id checks the worker makes, and a refused native gRPC client.
import { Code } from "@connectrpc/connect";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE } from "../../../support/cursor-client.ts";
import { codeModeClient, failure, openLease } from "../../../support/code-mode-host.ts";

describe("CodeModeHost routing", () => {
  it("opens a session whose id is a fresh UUID and closes it", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    expect(lease.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await client.closeSession({ sessionId: lease.sessionId });
    expect(await lease.next("the lease's end")).toBe("end");
    expect(await failure(client.closeSession({ sessionId: lease.sessionId }))).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode session ${lease.sessionId}`,
    });
  });

  it("refuses a call without a valid bearer token", async () => {
    expect((await failure(codeModeClient({ token: null }).closeSession({ sessionId: crypto.randomUUID() }))).code).toBe(
      Code.Unauthenticated,
    );
    expect((await failure(codeModeClient({ token: "nope" }).closeSession({ sessionId: crypto.randomUUID() }))).code).toBe(
      Code.Unauthenticated,
    );
  });

  it("checks session ids with Codex's texts and finds a session by any UUID spelling", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const wait = (sessionId: string) => client.wait({ sessionId, cellId: "9", waitId: crypto.randomUUID(), yieldTimeMs: 1n });
    expect(await failure(wait(""))).toEqual({ code: Code.InvalidArgument, message: "code-mode session ID must not be empty" });
    expect(await failure(wait("x"))).toEqual({ code: Code.InvalidArgument, message: "code-mode session ID must be a UUID" });
    expect(await failure(wait("a".repeat(257)))).toEqual({ code: Code.InvalidArgument, message: "code-mode session ID exceeds 256 bytes" });
    const unknown = "ABCDEF00-0000-4000-8000-000000000000";
    expect(await failure(wait(unknown))).toEqual({ code: Code.NotFound, message: `unknown code-mode session ${unknown}` });
    for (const spelling of [
      lease.sessionId.toUpperCase(),
      lease.sessionId.replaceAll("-", ""),
      `{${lease.sessionId}}`,
      `urn:uuid:${lease.sessionId}`,
    ]) {
      const missing = await wait(spelling);
      expect(missing.state.case).toBe("missingCell");
    }
    lease.drop();
  });

  it("serves gRPC-web as well as Connect", async () => {
    const client = codeModeClient({ protocol: "grpc-web" });
    const lease = await openLease(client);
    const response = await client.terminate({ sessionId: lease.sessionId, cellId: "7" });
    expect(response.state).toMatchObject({
      case: "missingCell",
      value: { cellId: "7", outcome: { case: "completed", value: { errorText: "exec cell 7 not found" } } },
    });
    expect(await failure(client.closeSession({ sessionId: "x" }))).toEqual({
      code: Code.InvalidArgument,
      message: "code-mode session ID must be a UUID",
    });
    await client.closeSession({ sessionId: lease.sessionId });
  });

  it("answers a native gRPC client with UNIMPLEMENTED and why, in the headers", async () => {
    const res = await exports.default.fetch(`${BASE}/codex.code_mode.v1.CodeModeHost/OpenSession`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/grpc", te: "trailers" },
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("grpc-status")).toBe(String(Code.Unimplemented));
    expect(decodeURIComponent(res.headers.get("grpc-message") ?? "")).toContain("gRPC-web");
  });

  it("answers an unknown method as unimplemented", async () => {
    const res = await exports.default.fetch(`${BASE}/codex.code_mode.v1.CodeModeHost/Nope`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/proto" },
      body: new Uint8Array(0),
    });
    expect(res.status).toBe(501);
  });
});
