// Checkpoints: the fixed tail of a turn and the blob acknowledgement barrier.
import { describe, expect, it } from "vitest";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { readNotFound, readSuccess, writeSuccess } from "../../support/exec-replies.ts";

describe("checkpoints", () => {
  it("ends a turn with turn_ended, then the same checkpoint staged, settled and settled, then {}", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "w-1", name: "Write", args: ['{"path":"/new.txt","contents":"hello"}'] }]),
      chatText(["written"]),
    ]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `write ${scenario.marker}` },
      { onExec: (exec, r) => r.send(exec.message.case === "readArgs" ? readNotFound(exec) : writeSuccess(exec)) },
    );
    expect(await reader.end()).toEqual({});
    const kinds = reader.kinds().filter((k) => k !== "heartbeat");
    expect(kinds.slice(-5)).toEqual([
      "turnEnded",
      "conversationCheckpointUpdate",
      "conversationCheckpointUpdate",
      "conversationCheckpointUpdate",
      "end",
    ]);
    const tail = reader.checkpoints().slice(-3);
    expect(tail[0]!.turns.length).toBe(1);
    expect(tail[0]!.rootPromptMessagesJson.length).toBe(5); // system, user, assistant(call), tool, assistant
    // Every blob the final checkpoint references was set on the client first.
    for (const id of [...tail[0]!.rootPromptMessagesJson, ...tail[0]!.turns]) {
      expect(reader.blobs.has(toHex(id))).toBe(true);
    }
  });

  it("fails the run clearly when the client never acknowledges a state blob", async () => {
    const scenario = await createScenario([chatToolCalls([{ id: "r-1", name: "Read", args: ['{"path":"/x"}'] }]), chatText(["never"])]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `no acks ${scenario.marker}` },
      { ackBlobs: false, onExec: (exec, r) => r.send(readSuccess(exec, "x")) },
    );
    const end = await reader.end(20_000);
    expect(end.error?.code).toBe("deadline_exceeded");
    expect(end.error?.message).toMatch(/did not acknowledge/);
    expect(reader.updates().map((u) => u.case)).not.toContain("turnEnded");
  }, 30_000);
});
