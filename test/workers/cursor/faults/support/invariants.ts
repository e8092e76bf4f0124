// The one checker every fault test ends with (docs/testing.md#fault-suite). After a fault:
// 1. no run of the conversation is left `running` (its DO's runs table);
// 2. every RunSSE stream the client read to its end ended with exactly one end-stream
//    frame, last, and then the body closed (streams the client abandoned are not read);
// 3. the history is intact: the next turn's provider request carries exactly the
//    expected messages (completed turns, the faulted turn's user message), each once;
// 4. that next turn, on the same conversation, completes with the expected text.
import { expect, vi } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { conversationName } from "../../../../../src/core/object-names.ts";
import { type FrameReader, startTurn } from "../../../../support/cursor-client.ts";
import type { Scenario } from "../../../../support/fake-provider.ts";
import { transcript } from "./transcript.ts";
import { LOCAL_PRINCIPAL_ID } from "../../../../../src/hosting/store/local-account.ts";

/** How long a fault may take to settle its run (the disconnect grace is 300 ms in tests, recovery is at once). */
const SETTLE_MS = 8_000;

export interface AfterFault {
  conversationId: string;
  /** The conversation's scenario: its next scripted response must answer the next turn with `nextAnswer`. */
  scenario: Scenario;
  /** Streams the client read to their end (each after `reader.end()`). */
  ended: FrameReader[];
  /** The history the next turn's provider request must carry before its own user message (transcript lines). */
  history: string[];
  nextAnswer: string;
}

export async function checkAfterFault(fault: AfterFault): Promise<void> {
  await expectNoRunRunning(fault.conversationId);
  for (const reader of fault.ended) expectOneEndStream(reader);

  const before = (await fault.scenario.requests()).length;
  const text = `the next turn ${fault.scenario.marker}`;
  const next = await startTurn({ conversationId: fault.conversationId, text });
  expect(await next.reader.end()).toEqual({});
  expectOneEndStream(next.reader);
  expect(next.reader.text()).toBe(fault.nextAnswer);
  const requests = await fault.scenario.requests(before + 1);
  expect(requests).toHaveLength(before + 1);
  expect(transcript(requests[before]!.body)).toEqual([...fault.history, `user: ${text}`]);
  await expectNoRunRunning(fault.conversationId);
}

/** Invariant 1, waiting (bounded) for a run the fault left behind to be settled. */
export async function expectNoRunRunning(conversationId: string): Promise<void> {
  await vi.waitFor(async () => expect(await runStatuses(conversationId)).not.toContain("running"), {
    timeout: SETTLE_MS,
    interval: 50,
  });
}

/** Invariant 2 for one stream that was read to its end. */
function expectOneEndStream(reader: FrameReader): void {
  expect(reader.closed, "the RunSSE body closed").toBe(true);
  expect(reader.frames.filter((f) => f.kind === "end")).toHaveLength(1);
  expect(reader.frames.at(-1)?.kind).toBe("end");
}

export function runStatuses(conversationId: string): Promise<string[]> {
  return runInDurableObject(env.CONVERSATION.getByName(conversationName(LOCAL_PRINCIPAL_ID, conversationId)), (_instance, state) =>
    state.storage.sql
      .exec<{ status: string }>("SELECT status FROM runs ORDER BY created_at_ms")
      .toArray()
      .map((r) => r.status),
  );
}
