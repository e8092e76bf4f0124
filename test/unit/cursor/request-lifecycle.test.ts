// The life of one request id, as the pure reducer sees it: the interleavings that
// matter, without Durable Objects, timers or a provider.
import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { AgentClientMessageSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { AppError, Code } from "../../../src/core/errors.ts";
import { OBJECT_HELD_MAX_BYTES, REQUEST_HELD_MAX_BYTES, SEQNO_WINDOW } from "../../../src/cursor/session/inbox.ts";
import {
  heldBytes,
  initialState,
  REQUEST_TTL_MS,
  type RequestEffect,
  type RequestEvent,
  type RequestState,
  reduce,
  restoredState,
} from "../../../src/cursor/session/request-lifecycle.ts";

type Plan = { text: string };
type Effect = RequestEffect<Plan>;

const message = (init: MessageInitShape<typeof AgentClientMessageSchema>) => create(AgentClientMessageSchema, init);
const runRequest = (text: string) =>
  message({
    message: { case: "runRequest", value: { action: { action: { case: "userMessageAction", value: { userMessage: { text } } } } } },
  });
const heartbeat = () => message({ message: { case: "clientHeartbeat", value: {} } });
const execResult = (id: number) => message({ message: { case: "execClientMessage", value: { id } } });
const userMessage = (text: string) =>
  message({
    message: {
      case: "conversationAction",
      value: { action: { case: "userMessageAction", value: { userMessage: { text, messageId: text } } } },
    },
  });
const cancel = () => message({ message: { case: "conversationAction", value: { action: { case: "cancelAction", value: {} } } } });

/** Drives the reducer the way the session does: released items come back as events. */
class Driver {
  state: RequestState = initialState(0);
  effects: Effect[] = [];
  nowMs = 0;

  constructor(state?: RequestState) {
    if (state) this.state = state;
  }

  send(event: RequestEvent<Plan>): { status?: string; effects: Effect[] } {
    const t = reduce<Plan>(this.state, event, this.nowMs);
    this.state = t.state;
    this.effects.push(...t.effects);
    const status = t.status;
    for (const effect of t.effects) {
      if (effect.kind !== "release") continue;
      for (const item of effect.items) {
        if (item.message.case === "runRequest") {
          const text =
            item.message.value.action?.action.case === "userMessageAction" ? item.message.value.action.action.value.userMessage?.text : "";
          this.send({ kind: "run-requested", runId: `run-${text}`, planned: { plan: { text: text ?? "" } }, subscribers: 1 });
        } else {
          this.send({ kind: "client-message", message: item });
        }
      }
    }
    return status === undefined ? { effects: t.effects } : { status, effects: t.effects };
  }

  append(seqno: number, m: ReturnType<typeof message>, heldElsewhere = 0) {
    return this.send({ kind: "append", seqno, bytes: toBinary(AgentClientMessageSchema, m), message: m, heldElsewhere });
  }

  kinds(): string[] {
    return this.effects.map((e) => e.kind);
  }

  take(): Effect[] {
    return this.effects.splice(0);
  }
}

const ended = (effects: Effect[]) => effects.filter((e) => e.kind === "end-stream");

describe("request lifecycle", () => {
  it("starts a run when run_request arrives at seqno 0 and ends the stream once when the run finishes", () => {
    const d = new Driver();
    expect(d.append(0, runRequest("hi")).status).toBe("accepted");
    expect(d.state).toMatchObject({ kind: "running", runId: "run-hi", graceArmed: false });
    expect(d.take().map((e) => e.kind)).toEqual(["release", "start-run"]);
    d.send({ kind: "run-finished", runId: "run-hi", error: undefined, continuable: false });
    expect(d.take()).toEqual([{ kind: "drop-finished" }, { kind: "end-stream", error: undefined }]);
    expect(d.state.kind).toBe("ended");
  });

  it("answers a heartbeat that arrives before seqno 0 at once and still starts the run that follows", () => {
    const d = new Driver();
    expect(d.append(1, heartbeat())).toEqual({ status: "buffered", effects: [{ kind: "heartbeat" }] });
    expect(d.state.kind).toBe("waiting");
    d.append(0, runRequest("late"));
    expect(d.state).toMatchObject({ kind: "running", runId: "run-late" });
    expect(d.take().map((e) => e.kind)).toEqual(["heartbeat", "release", "start-run"]);
  });

  it("delivers an append that arrives during the disconnect grace and stops the grace when a subscriber comes back", () => {
    const d = new Driver();
    d.append(0, runRequest("a"));
    d.take();
    d.send({ kind: "detached", remaining: 0 });
    expect(d.take()).toEqual([{ kind: "arm-grace" }]);
    d.append(1, execResult(7));
    expect(d.take().filter((e) => e.kind === "deliver")).toEqual([{ kind: "deliver", runId: "run-a", message: execResult(7) }]);
    expect(d.state).toMatchObject({ kind: "running", graceArmed: true });
    d.send({ kind: "subscribed" });
    expect(d.take()).toEqual([{ kind: "disarm-grace" }]);
    // A timer that fired anyway finds nothing armed.
    expect(d.send({ kind: "grace-expired", subscribers: 1 }).effects).toEqual([]);
  });

  it("cancels the run when the grace expires with nobody subscribed", () => {
    const d = new Driver();
    d.append(0, runRequest("a"));
    d.send({ kind: "detached", remaining: 0 });
    d.take();
    expect(d.send({ kind: "grace-expired", subscribers: 0 }).effects).toEqual([
      { kind: "cancel-run", runId: "run-a", reason: "the client disconnected" },
    ]);
  });

  it("arms the grace from the start for a run nobody subscribes to", () => {
    const t = reduce<Plan>(initialState(0), { kind: "run-requested", runId: "r", planned: { plan: { text: "" } }, subscribers: 0 }, 0);
    expect(t.effects.map((e) => e.kind)).toEqual(["start-run", "arm-grace"]);
    expect(t.state).toMatchObject({ kind: "running", graceArmed: true });
  });

  it("keeps the grace off while another subscriber is still attached", () => {
    const d = new Driver();
    d.append(0, runRequest("a"));
    d.take();
    expect(d.send({ kind: "detached", remaining: 1 }).effects).toEqual([]);
    expect(d.state).toMatchObject({ kind: "running", graceArmed: false });
  });

  it("answers a refused run_request on an ended request with a fresh stream that carries only the error", () => {
    const d = new Driver();
    d.append(0, runRequest("one"));
    d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: false });
    d.take();
    const refused = new AppError("not_found", 'model "x" is not configured');
    const t = reduce<Plan>(d.state, { kind: "run-requested", runId: "r2", planned: { error: refused }, subscribers: 0 }, 0);
    expect(t.effects).toEqual([{ kind: "open-stream" }, { kind: "end-stream", error: refused }]);
    expect(t.state.kind).toBe("ended");
  });

  it("parks a bounded number of appends on an ended request", () => {
    const d = new Driver();
    d.append(0, runRequest("one"));
    for (let s = 1; s <= 1100; s++) d.append(s, heartbeat());
    d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: false });
    for (let s = 1; s <= 1100; s++) d.append(s, heartbeat());
    expect(d.state.kind === "ended" && d.state.parked.length).toBe(1024);
  });

  it("lets a subscriber after the end replay it without changing anything", () => {
    const d = new Driver();
    d.append(0, runRequest("a"));
    d.send({ kind: "run-finished", runId: "run-a", error: undefined, continuable: false });
    const before = d.state;
    expect(d.send({ kind: "subscribed" }).effects).toEqual([]);
    expect(d.state).toBe(before);
  });

  it("after an object restart mid-run, tells the stored end and opens a fresh stream for the next run_request", () => {
    const error = new AppError("unavailable", "the run was interrupted by a server restart; send the message again");
    const restored = restoredState<Plan>(0, error);
    expect(restored.effects).toEqual([{ kind: "end-stream", error }]);
    const d = new Driver(restored.state);
    d.append(0, runRequest("again"));
    expect(d.state).toMatchObject({ kind: "running", runId: "run-again" });
    expect(d.take().map((e) => e.kind)).toEqual(["release", "open-stream", "start-run", "arm-grace"]);
  });

  it("replaces a run during its tool round: the stream goes on with the new run and ends once, when the new run finishes", () => {
    const d = new Driver();
    d.append(0, runRequest("first"));
    d.append(1, execResult(1));
    d.take();
    d.append(2, runRequest("second"));
    // ActiveRun cancels the replaced run when the new one starts; the reducer keeps the stream.
    expect(d.take().map((e) => e.kind)).toEqual(["release", "start-run"]);
    expect(d.state).toMatchObject({ kind: "running", runId: "run-second" });
    d.append(3, execResult(1));
    expect(d.take().find((e) => e.kind === "deliver")).toMatchObject({ runId: "run-second" });
    d.send({ kind: "run-finished", runId: "run-first", error: new AppError("canceled", "run was cancelled"), continuable: false });
    expect(d.take()).toEqual([]);
    d.send({ kind: "run-finished", runId: "run-second", error: undefined, continuable: false });
    expect(ended(d.take())).toEqual([{ kind: "end-stream", error: undefined }]);
  });

  it("ends a stream whose replacing run_request is refused, cancelling the run it was replacing", () => {
    const d = new Driver();
    d.append(0, runRequest("first"));
    d.take();
    const refused = new AppError("not_found", 'model "x" is not configured');
    const t = reduce<Plan>(d.state, { kind: "run-requested", runId: "r2", planned: { error: refused }, subscribers: 1 }, 0);
    expect(t.effects).toEqual([
      { kind: "cancel-run", runId: "run-first", reason: "replaced by a newer run_request" },
      { kind: "end-stream", error: refused },
    ]);
    expect(t.state.kind).toBe("ended");
  });

  it("on shutdown while the run compacts (a running run to the reducer), ends the stream canceled once; the run finishing later adds nothing", () => {
    const d = new Driver();
    d.append(0, runRequest("/summarize"));
    d.send({ kind: "detached", remaining: 0 });
    d.take();
    d.send({ kind: "shutdown" });
    const effects = d.take();
    expect(ended(effects)).toHaveLength(1);
    expect((ended(effects)[0] as { error: AppError }).error.code).toBe(Code.Canceled);
    expect(effects.map((e) => e.kind)).toEqual(["end-stream", "disarm-grace"]);
    d.send({ kind: "run-finished", runId: "run-/summarize", error: undefined, continuable: false });
    d.send({ kind: "shutdown" });
    expect(d.take()).toEqual([]);
  });

  it("treats a repeat of seqno 0 on an ended request as a retry, and a different seqno 0 as a new numbering with a fresh stream", () => {
    const d = new Driver();
    d.append(0, runRequest("one"));
    d.append(1, execResult(1));
    d.append(2, execResult(2));
    d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: false });
    d.take();
    expect(d.append(0, runRequest("one"))).toEqual({ status: "stale", effects: [] });
    // The new numbering's seqno 1 overtakes its seqno 0: parked, then released after it.
    expect(d.append(1, heartbeat()).status).toBe("stale");
    d.take();
    expect(d.append(0, runRequest("two")).status).toBe("accepted");
    expect(d.state).toMatchObject({ kind: "running", runId: "run-two" });
    expect(d.take().map((e) => e.kind)).toEqual(["open-stream", "release", "start-run"]);
    expect(d.append(2, execResult(3)).status).toBe("accepted");
    expect(d.take().find((e) => e.kind === "deliver")).toMatchObject({ runId: "run-two" });
  });

  it("continues a reused request id's seqno order on a fresh stream when a later run_request arrives after the end", () => {
    const d = new Driver();
    d.append(0, runRequest("one"));
    d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: false });
    d.take();
    d.append(1, runRequest("next"));
    expect(d.take().map((e) => e.kind)).toEqual(["release", "open-stream", "start-run", "arm-grace"]);
  });

  it("hands a runtime action to the live run, and to nobody once the request has ended", () => {
    const d = new Driver();
    d.append(0, runRequest("a"));
    d.take();
    d.append(1, cancel());
    expect(d.take().find((e) => e.kind === "runtime-action")).toMatchObject({ runId: "run-a" });
    d.send({ kind: "run-finished", runId: "run-a", error: undefined, continuable: false });
    d.append(2, cancel());
    expect(d.take().find((e) => e.kind === "runtime-action")).toMatchObject({ runId: null });
    d.append(3, execResult(1));
    expect(d.take().filter((e) => e.kind === "deliver")).toEqual([]);
  });

  it("forgets an ended request after its TTL and ends a request that waited that long for its run_request", () => {
    const waiting = new Driver();
    waiting.append(3, execResult(1));
    waiting.take();
    waiting.nowMs = REQUEST_TTL_MS + 1;
    waiting.send({ kind: "expire", ttlMs: REQUEST_TTL_MS });
    const effects = waiting.take();
    expect(effects.map((e) => e.kind)).toEqual(["end-stream", "forget"]);
    expect((effects[0] as { error: AppError }).error.code).toBe(Code.DeadlineExceeded);

    const done = new Driver();
    done.append(0, runRequest("a"));
    done.send({ kind: "run-finished", runId: "run-a", error: undefined, continuable: false });
    done.take();
    done.nowMs = REQUEST_TTL_MS - 1;
    done.send({ kind: "expire", ttlMs: REQUEST_TTL_MS });
    expect(done.take()).toEqual([]);
    done.nowMs = REQUEST_TTL_MS + 1;
    done.send({ kind: "expire", ttlMs: REQUEST_TTL_MS });
    expect(done.take()).toEqual([{ kind: "forget" }]);
  });

  it("keeps a completed turn's stream open in the continuation window and runs a user message there as the next turn", () => {
    const d = new Driver();
    d.append(0, runRequest("one"));
    d.take();
    d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: true });
    expect(d.take()).toEqual([{ kind: "drop-finished" }, { kind: "arm-continuation" }]);
    expect(d.state.kind).toBe("continuable");
    d.append(1, userMessage("and then?"));
    const effects = d.take();
    expect(effects.map((e) => e.kind)).toEqual(["release", "continue"]);
    const t = reduce<Plan>(
      d.state,
      { kind: "run-requested", runId: "run-two", planned: { plan: { text: "" } }, subscribers: 1, continuation: true },
      0,
    );
    expect(t.effects.map((e) => e.kind)).toEqual(["disarm-continuation", "start-run"]);
    expect(t.state).toMatchObject({ kind: "running", runId: "run-two" });
  });

  it("ends a completed turn's stream with {} when the continuation window passes, on shutdown, or on a cancel", () => {
    for (const event of [{ kind: "continuation-expired" }, { kind: "shutdown" }] as const) {
      const d = new Driver();
      d.append(0, runRequest("one"));
      d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: true });
      d.take();
      d.send(event);
      expect(ended(d.take())).toEqual([{ kind: "end-stream", error: undefined }]);
      expect(d.state.kind).toBe("ended");
    }
    const d = new Driver();
    d.append(0, runRequest("one"));
    d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: true });
    d.take();
    d.append(1, cancel());
    expect(d.take().map((e) => e.kind)).toEqual(["release", "disarm-continuation", "end-stream"]);
  });

  it("ends the window before a new run_request on the same request opens a fresh stream", () => {
    const d = new Driver();
    d.append(0, runRequest("one"));
    d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: true });
    d.take();
    d.append(1, runRequest("two"));
    expect(d.take().map((e) => e.kind)).toEqual(["release", "disarm-continuation", "end-stream", "open-stream", "start-run", "arm-grace"]);
  });

  it("renumbers a request reused inside its continuation window: the window closes with {}, the new run_request starts on a fresh stream", () => {
    const d = new Driver();
    d.append(0, runRequest("one"));
    d.send({ kind: "run-finished", runId: "run-one", error: undefined, continuable: true });
    d.take();
    expect(d.append(0, runRequest("two")).status).toBe("accepted");
    expect(d.take().map((e) => e.kind)).toEqual(["disarm-continuation", "end-stream", "open-stream", "release", "start-run"]);
    expect(d.state).toMatchObject({ kind: "running", runId: "run-two" });
  });

  describe("what an append may hold (docs/protocol.md#limits)", () => {
    const MIB = 1024 * 1024;
    const big = (tag: string) => userMessage(`${tag}:${"x".repeat(4 * MIB)}`);

    it("refuses appends that would hold more than the request's cap, and counts the object's other requests", () => {
      const d = new Driver();
      d.append(0, runRequest("a"));
      let seqno = 2; // seqno 1 never comes: everything after it waits
      let status = d.append(seqno, big("m")).status;
      while (status === "buffered") status = d.append(++seqno, big("m")).status;
      expect(status).toBe("overflow");
      const size = toBinary(AgentClientMessageSchema, big("m")).byteLength;
      expect(heldBytes(d.state)).toBeLessThanOrEqual(REQUEST_HELD_MAX_BYTES);
      expect(heldBytes(d.state) + size).toBeGreaterThan(REQUEST_HELD_MAX_BYTES);
      expect(seqno).toBeGreaterThan(2);
      const fresh = new Driver();
      fresh.append(0, runRequest("b"));
      expect(fresh.append(2, big("elsewhere"), OBJECT_HELD_MAX_BYTES - 4 * MIB).status).toBe("overflow");
      expect(fresh.append(2, big("room"), OBJECT_HELD_MAX_BYTES - 12 * MIB).status).toBe("buffered");
    });

    it("refuses a seqno more than the window ahead of the next one", () => {
      const d = new Driver();
      d.append(0, runRequest("a"));
      expect(d.append(1 + SEQNO_WINDOW + 1, heartbeat()).status).toBe("too-far");
      expect(d.append(1 + SEQNO_WINDOW, heartbeat()).status).toBe("buffered");
    });

    it("frees the appends waiting for a gap when the run ends, so filling the gap later releases none of them", () => {
      const d = new Driver();
      d.append(0, runRequest("a"));
      d.append(2, userMessage("stale-after-end"));
      expect(heldBytes(d.state)).toBeGreaterThan(0);
      d.send({ kind: "run-finished", runId: "run-a", error: undefined, continuable: false });
      expect(heldBytes(d.state)).toBe(0);
      d.take();
      d.append(1, heartbeat());
      expect(d.take().filter((e) => e.kind === "runtime-action")).toEqual([]);
    });

    it("parks an ended request's appends ahead of its next seqno for a renumbering, which then gets them in order", () => {
      const d = new Driver();
      d.append(0, runRequest("a"));
      d.send({ kind: "run-finished", runId: "run-a", error: undefined, continuable: false });
      // The next numbering's seqnos 3 and 2 overtake its seqno 0 (the old one's next seqno is 1).
      expect(d.append(3, userMessage("three")).status).toBe("buffered");
      expect(d.append(2, userMessage("two")).status).toBe("buffered");
      expect(d.append(2, userMessage("two")).status).toBe("duplicate");
      expect(heldBytes(d.state)).toBeGreaterThan(0);
      d.take();
      d.append(0, runRequest("b"));
      d.append(1, heartbeat());
      const texts = d
        .take()
        .flatMap((e) =>
          e.kind === "runtime-action" && e.action.action.case === "userMessageAction" ? [e.action.action.value.userMessage?.text] : [],
        );
      expect(texts).toEqual(["two", "three"]);
      expect(heldBytes(d.state)).toBe(0);
    });
  });
});
