// forwardWithBeat(): a forwarded stream keeps a fixed beat (the lease's renewal, and a
// heartbeat message when the client asked) whatever the object's messages do.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { forwardWithBeat, HEARTBEAT_MS, LEASE_RENEW_MS, LEASE_TTL_MS } from "../../../../src/code-mode/host/lease.ts";
import { leaseRenewal } from "../../../../src/code-mode/host/lease-renewal.ts";
import { type SessionEvent, SessionEventSchema } from "../../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { deferred, withTimeout } from "../../../support/deferred.ts";

const opened = create(SessionEventSchema, { event: { case: "opened", value: { sessionId: "s" } } });

/** The object's side: `opened`, then nothing until the test ends it. */
function objectEvents(end: Promise<void>): AsyncIterable<SessionEvent> {
  return (async function* () {
    yield opened;
    await end;
  })();
}

describe("forwardWithBeat()", () => {
  it("beats on a fixed period and sends what a beat returns", async () => {
    for (const heartbeat of [true, false]) {
      const end = deferred<void>();
      const renewed = { count: 0, third: deferred<void>() };
      const forwarded = forwardWithBeat(objectEvents(end.promise), {
        beatMs: 5,
        onBeat: () => {
          if (++renewed.count === 3) renewed.third.resolve();
          return heartbeat ? create(SessionEventSchema, {}) : undefined;
        },
      });
      const seen: (string | undefined)[] = [];
      const reading = (async () => {
        for await (const event of forwarded) seen.push(event.event.case);
      })();
      await withTimeout(renewed.third.promise, 5_000, "three beats");
      end.resolve();
      await withTimeout(reading, 5_000, "the lease's end");
      expect(seen[0]).toBe("opened");
      if (heartbeat) expect(seen.slice(1).every((c) => c === undefined) && seen.length >= 3).toBe(true);
      else expect(seen).toEqual(["opened"]);
    }
  });
});

describe("leaseRenewal()", () => {
  it("renews at least four times per TTL, by counting beats, and goes on after a renewal that failed", async () => {
    expect(LEASE_RENEW_MS).toBeLessThanOrEqual(LEASE_TTL_MS / 4);
    for (const beatMs of [LEASE_RENEW_MS, HEARTBEAT_MS]) {
      const renewals: number[] = [];
      let beat = 0;
      const renew = leaseRenewal(beatMs, async () => {
        renewals.push(beat);
        if (renewals.length === 1) throw new Error("the object is restarting");
      });
      const beats = (2 * LEASE_RENEW_MS) / beatMs;
      for (beat = 1; beat <= beats; beat++) renew();
      const every = LEASE_RENEW_MS / beatMs;
      expect(renewals).toEqual([every, 2 * every]);
    }
  });
});
