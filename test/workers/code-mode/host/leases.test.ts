// The lease (docs/code-mode.md#leases): a session lives as long as its OpenSession
// stream and the worker's renewals. A dropped stream, a lease not renewed for 15 s
// (the object's alarm) and a restart of the object each retire it, and later calls
// get not_found; sessions are scoped by principal.
import { Code, ConnectError } from "@connectrpc/connect";
import { abortAllDurableObjects, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { codeModeSessionName } from "../../../../src/core/object-names.ts";
import { createTeam, member } from "../../../support/admin-client.ts";
import { type CodeModeClient, codeModeClient, collect, openLease } from "../../../support/code-mode-host.ts";
import { withTimeout } from "../../../support/deferred.ts";

/** The lease TTL of docs/code-mode.md#leases. */
const LEASE_TTL_MS = 15_000;

function sessionObject(sessionId: string, principal = "local") {
  return env.CODE_MODE.getByName(codeModeSessionName(principal, sessionId));
}

function sessionRow(sessionId: string) {
  return runInDurableObject(sessionObject(sessionId), (_instance, state) =>
    state.storage.sql
      .exec<{ state: string; lease_expires_at_ms: number }>(
        "SELECT state, lease_expires_at_ms FROM code_mode_sessions WHERE session_id = ?",
        sessionId,
      )
      .one(),
  );
}

/** What the object keeps: its tables (the platform's own, `_cf_…`, aside) and its alarm. */
function objectStorage(sessionId: string) {
  return runInDurableObject(sessionObject(sessionId), async (_instance, state) => ({
    tables: state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
      .toArray()
      .map((row) => row.name),
    alarm: await state.storage.getAlarm(),
  }));
}

const EMPTY = { tables: [], alarm: null };

/** A call on the session: OK while it is open. */
function probe(client: CodeModeClient, sessionId: string) {
  return client.wait({ sessionId, cellId: "1", waitId: crypto.randomUUID(), yieldTimeMs: 1n });
}

async function codeOf(call: Promise<unknown>): Promise<{ code: Code; message: string } | "ok"> {
  try {
    await call;
    return "ok";
  } catch (err) {
    const error = ConnectError.from(err);
    return { code: error.code, message: error.rawMessage };
  }
}

/** Calls until the session is gone: the object learns of a dropped stream asynchronously. */
async function untilRetired(client: CodeModeClient, sessionId: string): Promise<{ code: Code; message: string }> {
  return withTimeout(
    (async () => {
      for (;;) {
        const result = await codeOf(probe(client, sessionId));
        if (result !== "ok") return result;
      }
    })(),
    10_000,
    "the session to be retired",
  );
}

describe("code-mode leases", () => {
  it("retires the session when the client drops its lease stream", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    expect(await codeOf(probe(client, lease.sessionId))).toBe("ok");
    lease.drop();
    expect(await untilRetired(client, lease.sessionId)).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode session ${lease.sessionId}`,
    });
    expect(await objectStorage(lease.sessionId)).toEqual(EMPTY);
  });

  it("retires a session whose lease was not renewed for the TTL when the alarm runs", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const opened = await sessionRow(lease.sessionId);
    expect(opened.state).toBe("open");
    // As if LEASE_TTL_MS had passed without a renewal.
    await runInDurableObject(sessionObject(lease.sessionId), (_instance, state) => {
      state.storage.sql.exec("UPDATE code_mode_sessions SET lease_expires_at_ms = ?", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(sessionObject(lease.sessionId))).toBe(true);
    expect(await lease.next("the lease's end")).toBe("end");
    expect(await codeOf(probe(client, lease.sessionId))).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode session ${lease.sessionId}`,
    });
    expect(await objectStorage(lease.sessionId)).toEqual(EMPTY);
  });

  it("keeps a renewed lease through the alarm, which arms itself for the renewed expiry", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const before = Date.now();
    expect(await sessionObject(lease.sessionId).renewLease(lease.sessionId)).toBe(true);
    const renewed = await sessionRow(lease.sessionId);
    expect(renewed.lease_expires_at_ms).toBeGreaterThanOrEqual(before + LEASE_TTL_MS);
    expect(await runDurableObjectAlarm(sessionObject(lease.sessionId))).toBe(true);
    expect(await codeOf(probe(client, lease.sessionId))).toBe("ok");
    const alarm = await runInDurableObject(sessionObject(lease.sessionId), (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBe(renewed.lease_expires_at_ms);
    await client.closeSession({ sessionId: lease.sessionId });
    expect(await sessionObject(lease.sessionId).renewLease(lease.sessionId)).toBe(false);
  });

  it("deletes a closed session's storage and alarm, and goes on answering not_found for it", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const { sessionId } = lease;
    await collect(client.execute({ sessionId, executionId: "e1", toolCallId: "c", source: 'store("k", "v")', yieldTimeMs: 5_000n }));
    expect((await objectStorage(sessionId)).tables).toContain("code_mode_values");
    await client.closeSession({ sessionId });
    expect(await objectStorage(sessionId)).toEqual(EMPTY);
    const unknown = { code: Code.NotFound, message: `unknown code-mode session ${sessionId}` };
    expect(await codeOf(probe(client, sessionId))).toEqual(unknown);
    expect(await codeOf(client.closeSession({ sessionId }))).toEqual(unknown);
    expect(await sessionObject(sessionId).renewLease(sessionId)).toBe(false);
    // A later life of the empty object answers the same, and makes no tables for it.
    await abortAllDurableObjects();
    expect(await codeOf(probe(client, sessionId))).toEqual(unknown);
    expect(await objectStorage(sessionId)).toEqual(EMPTY);
  });

  it("answers not_found from an object that never had a session, without making its tables", async () => {
    const client = codeModeClient();
    const sessionId = crypto.randomUUID();
    expect(await codeOf(probe(client, sessionId))).toEqual({ code: Code.NotFound, message: `unknown code-mode session ${sessionId}` });
    expect(await objectStorage(sessionId)).toEqual(EMPTY);
  });

  it("retires an open session when its object restarts: the stream died with the old instance", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    await abortAllDurableObjects();
    const ended = await lease.next("the lease to fail").catch((err: unknown) => ConnectError.from(err));
    expect(ended).toBeInstanceOf(ConnectError);
    expect(await codeOf(probe(client, lease.sessionId))).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode session ${lease.sessionId}`,
    });
    expect(await objectStorage(lease.sessionId)).toEqual(EMPTY);
  });

  it("gives another principal not_found for a session, which goes on for its own principal", async () => {
    const owner = codeModeClient();
    const lease = await openLease(owner);
    const team = await createTeam();
    const other = codeModeClient({ token: (await member(team.id, "member")).token });
    expect(await codeOf(probe(other, lease.sessionId))).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode session ${lease.sessionId}`,
    });
    expect(await codeOf(other.closeSession({ sessionId: lease.sessionId }))).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode session ${lease.sessionId}`,
    });
    expect(await codeOf(probe(owner, lease.sessionId))).toBe("ok");
    await owner.closeSession({ sessionId: lease.sessionId });
  });
});
