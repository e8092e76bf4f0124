// Fault suite, the provider side (docs/testing.md#fault-suite): a provider that cuts its
// stream, rate-limits every attempt, sends headers and then nothing, or sends garbage. The
// real fake provider server plays each fault; after each, the shared invariants hold.
import { describe, expect, it } from "vitest";
import { startTurn } from "../../../support/cursor-client.ts";
import {
  chatChunk,
  chatText,
  chatToolCalls,
  createScenario,
  cutAfter,
  HEADERS_THEN_SILENCE,
  httpError,
  type ScriptedResponse,
} from "../../../support/fake-provider.ts";
import { checkAfterFault } from "./support/invariants.ts";

/** Attempts a turn makes on a retryable failure before it gives up (src/cursor/agent/model-call.ts). */
const ATTEMPTS = 4;
const NEXT = "the next answer";

/** The history line of an answer the provider cut off after `text` reached the client. */
const cutOff = (text: string) => `assistant: ${text}\n\n[This answer was cut off: the model provider's stream failed here.]`;

const times = (count: number, response: ScriptedResponse) => Array.from({ length: count }, () => response);

/** One faulted turn then the checker; `attempts` provider requests are the faulted turn's. */
async function faultedTurn(opts: { responses: ScriptedResponse[]; attempts: number; model?: string; tag: string }) {
  const scenario = await createScenario([...opts.responses, chatText([NEXT])]);
  const conversationId = crypto.randomUUID();
  const text = `${opts.tag} ${scenario.marker}`;
  const { reader } = await startTurn({ conversationId, text, ...(opts.model && { model: opts.model }) });
  const end = await reader.end(20_000);
  expect(await scenario.requests(opts.attempts)).toHaveLength(opts.attempts);
  return { scenario, conversationId, reader, end, text };
}

describe.concurrent("fault suite: provider", () => {
  it("a provider that cuts its stream after some text fails the turn once, keeps the text the client showed in the history marked as cut off, and the conversation goes on", async () => {
    const cut = cutAfter(chatText(["partial ", "answer ", "never sent"]), 3);
    const turn = await faultedTurn({ responses: [cut], attempts: 1, tag: "cut" });
    expect(turn.end.error?.code).toBe("unavailable");
    expect(turn.reader.text()).toBe("partial answer ");
    await checkAfterFault({ ...turn, ended: [turn.reader], history: [`user: ${turn.text}`, cutOff("partial answer ")], nextAnswer: NEXT });
  });

  it("a provider that cuts its stream before any text is retried, and the turn completes", async () => {
    const cut = cutAfter(chatText(["never sent"]), 1);
    const turn = await faultedTurn({ responses: [cut, chatText(["second try"])], attempts: 2, tag: "cut early" });
    expect(turn.end).toEqual({});
    expect(turn.reader.text()).toBe("second try");
    await checkAfterFault({ ...turn, ended: [turn.reader], history: [`user: ${turn.text}`, "assistant: second try"], nextAnswer: NEXT });
  });

  it("a provider that cuts its stream inside a tool call's arguments fails the turn, and the half call stays out of the history", async () => {
    const call = chatToolCalls([{ id: "read-1", name: "Read", args: ['{"pa', 'th":"/a"}'] }]);
    const turn = await faultedTurn({ responses: [cutAfter(call, 3)], attempts: 1, tag: "cut call" });
    expect(turn.end.error?.code).toBe("unavailable");
    expect(turn.reader.kinds()).toContain("partialToolCall");
    await checkAfterFault({ ...turn, ended: [turn.reader], history: [`user: ${turn.text}`], nextAnswer: NEXT });
  });

  it.each<{ what: string; headers: Record<string, string>; attempts: number; message: RegExp }>([
    { what: "without Retry-After", headers: {}, attempts: ATTEMPTS, message: /HTTP 429: slow down$/ },
    { what: "with Retry-After: 1", headers: { "retry-after": "1" }, attempts: ATTEMPTS, message: /HTTP 429: slow down$/ },
    { what: "with a Retry-After beyond the retry budget", headers: { "retry-after": "120" }, attempts: 1, message: /retry budget spent/ },
  ])(
    "a 429 storm $what ends the turn unavailable after $attempts attempt(s), and the conversation goes on",
    async (c) => {
      const turn = await faultedTurn({
        responses: times(c.attempts, httpError(429, "slow down", c.headers)),
        attempts: c.attempts,
        tag: "storm",
      });
      expect(turn.end.error?.code).toBe("unavailable");
      expect(turn.end.error?.message).toMatch(c.message);
      await checkAfterFault({ ...turn, ended: [turn.reader], history: [`user: ${turn.text}`], nextAnswer: NEXT });
    },
    30_000,
  );

  it("a provider that sends headers and then nothing (slowloris) ends the turn with a first-response timeout, and the conversation goes on", async () => {
    const turn = await faultedTurn({
      responses: times(ATTEMPTS, HEADERS_THEN_SILENCE),
      attempts: ATTEMPTS,
      model: "fake-stall",
      tag: "slowloris",
    });
    expect(turn.end.error?.code).toBe("unavailable");
    expect(turn.end.error?.message).toMatch(/first-response timeout: response headers, then no data for 1 s/);
    await checkAfterFault({ ...turn, ended: [turn.reader], history: [`user: ${turn.text}`], nextAnswer: NEXT });
  }, 30_000);

  const role = chatChunk("garbage", { role: "assistant", content: "" });
  it.each([
    { what: "bytes that are not SSE", steps: [{ raw: "<html><body>502 Bad Gateway</body></html>\n\n" }], attempts: ATTEMPTS, text: "" },
    { what: "an event of broken JSON", steps: [role, { data: '{"id":"x","choices":[{"delta":' }], attempts: ATTEMPTS, text: "" },
    {
      what: "broken JSON after some text",
      steps: [role, chatChunk("garbage", { content: "said this " }), { data: "{not json" }],
      attempts: 1,
      text: "said this ",
    },
    { what: "binary noise", steps: [{ raw: "\u0000\u00ff\u0013data\u0000: \r\r\n\n\u0007" }], attempts: ATTEMPTS, text: "" },
  ])(
    "a provider that sends $what fails the turn with a provider error, keeps any text the client showed, and the conversation goes on",
    async (c) => {
      const turn = await faultedTurn({ responses: times(c.attempts, { steps: c.steps }), attempts: c.attempts, tag: "garbage" });
      expect(turn.end.error?.code).toBe("unavailable");
      expect(turn.reader.text()).toBe(c.text);
      const kept = c.text === "" ? [] : [cutOff(c.text)];
      await checkAfterFault({ ...turn, ended: [turn.reader], history: [`user: ${turn.text}`, ...kept], nextAnswer: NEXT });
    },
    30_000,
  );
});
