// Fault suite: the conversation object restarts mid-run (an eviction or a deploy), played
// by aborting the real Durable Object at each phase of a turn. The open RunSSE ends with
// one `unavailable` (the edge adds it, src/cursor/routes/agent-routes.ts), the run is recovered as
// failed when the object starts again, or completed when its answer was already stored
// (docs/architecture.md#run-recovery), and the shared
// invariants hold: what the turn completed before the restart stays in the history.
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { conversationName } from "../../../../src/core/object-names.ts";
import { type ClientBehaviour, type FrameReader, startTurn, updateCase } from "../../../support/cursor-client.ts";
import {
  chatText,
  chatToolCalls,
  createScenario,
  type Scenario,
  type ScriptedResponse,
  withGates,
} from "../../../support/fake-provider.ts";
import { checkAfterFault, runStatuses } from "./support/invariants.ts";
import { LOCAL_PRINCIPAL_ID } from "../../../../src/hosting/store/local-account.ts";

const NEXT = "the next answer";

interface Phase {
  what: string;
  response: ScriptedResponse;
  behaviour?: ClientBehaviour;
  /** Waits until the turn is in the phase. */
  reach: (reader: FrameReader, scenario: Scenario) => Promise<unknown>;
  /** The text the client saw before the restart. */
  text: string;
  /** What the faulted turn leaves in the history after its user message. */
  kept: string[];
  /** How the run is recorded once recovered. */
  recorded: "failed" | "completed";
}

const textDelta = (reader: FrameReader) => reader.until((f) => updateCase(f) === "textDelta", "the first text");

const PHASES: Phase[] = [
  {
    what: "before the provider's first text",
    response: withGates(chatText(["late"]), { 0: "stream" }),
    reach: (_r, scenario) => scenario.reached("stream"),
    text: "",
    kept: [],
    recorded: "failed",
  },
  {
    what: "while the provider streams text",
    response: withGates(chatText(["early ", "late"]), { 2: "stream" }),
    reach: async (reader, scenario) => Promise.all([scenario.reached("stream"), textDelta(reader)]),
    text: "early ",
    kept: [],
    recorded: "failed",
  },
  {
    what: "during a tool round, the tool call unanswered",
    response: chatToolCalls([{ id: "read-1", name: "Read", args: ['{"path":"/a"}'] }]),
    behaviour: { onExec: () => {} }, // blobs acknowledged, the tool call left unanswered
    reach: (reader) => reader.until((f) => f.kind === "message" && f.message.message.case === "execServerMessage", "the tool call"),
    text: "",
    kept: ['assistant calls Read(read-1) {"path":"/a"}', "tool(read-1): Tool execution was interrupted before it returned a result."],
    recorded: "failed",
  },
  {
    what: "in the checkpoint tail, a state blob unacknowledged",
    response: chatText(["the whole ", "answer"]),
    behaviour: { ackBlobs: false },
    reach: async (reader) => {
      await textDelta(reader);
      await reader.until((f) => f.kind === "message" && f.message.message.case === "kvServerMessage", "a state blob");
    },
    text: "the whole answer",
    kept: ["assistant: the whole answer"],
    recorded: "completed",
  },
];

describe("fault suite: conversation object restart", () => {
  it.each(PHASES)(
    "an object that restarts $what ends the stream unavailable once, records the run $recorded, and the conversation goes on",
    async (phase) => {
      const scenario = await createScenario([chatText(["first answer"]), phase.response, chatText([NEXT])]);
      const conversationId = crypto.randomUUID();
      const firstText = `first ${scenario.marker}`;
      const first = await startTurn({ conversationId, text: firstText });
      expect(await first.reader.end()).toEqual({});

      const text = `restart ${scenario.marker}`;
      const { reader } = await startTurn({ conversationId, text }, phase.behaviour);
      await phase.reach(reader, scenario);
      await runInDurableObject(env.CONVERSATION.getByName(conversationName(LOCAL_PRINCIPAL_ID, conversationId)), (_instance, state) => {
        state.abort("simulated eviction");
      }).catch(() => undefined);
      expect((await reader.end()).error?.code).toBe("unavailable");
      expect(reader.text()).toBe(phase.text);
      expect(await runStatuses(conversationId)).toEqual(["completed", phase.recorded]);
      await checkAfterFault({
        conversationId,
        scenario,
        ended: [first.reader, reader],
        history: [`user: ${firstText}`, "assistant: first answer", `user: ${text}`, ...phase.kept],
        nextAnswer: NEXT,
      });
    },
  );
});
