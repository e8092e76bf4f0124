// A conversation the server has lost continues from the client's own copy, and
// an edited earlier message branches the history before it.
import { describe, expect, it } from "vitest";
import { chatText, chatToolCalls, createScenario, httpError } from "../../support/fake-provider.ts";
import { create } from "@bufbuild/protobuf";
import { PreFetchedBlobSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { appendOk, clientMessage, runRequest, startTurn, updateCase } from "../../support/cursor-client.ts";
import { readSuccess } from "../../support/exec-replies.ts";
import { deferred } from "../../support/deferred.ts";
import type { ConversationStateStructure, ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { messagesPrefix } from "../../support/prefix.ts";

describe("recovery and branching", () => {
  it("continues a conversation known only from the client's conversation_state, byte for byte", async () => {
    const scenario = await createScenario([chatText(["first answer"]), chatText(["recovered answer"])]);
    const first = await startTurn({ conversationId: crypto.randomUUID(), text: `remember ${scenario.marker}`, messageId: "u1" });
    expect(await first.reader.end()).toEqual({});
    const state = first.reader.checkpoints().at(-1)!;

    // A conversation object that has never seen it (new deployment, lost storage):
    // half of the root blobs come pre-fetched, the rest on request (get_blob).
    const roots = state.rootPromptMessagesJson;
    const prefetched = roots.slice(0, 1).map((id) => ({ id, value: first.reader.blobs.get(toHex(id))! }));
    const base = runRequest({ conversationId: crypto.randomUUID(), text: "and now?", messageId: "u2" });
    if (base.message.case !== "runRequest") throw new Error("unreachable");
    base.message.value.conversationState = state;
    base.message.value.preFetchedBlobs = prefetched.map((p) => create(PreFetchedBlobSchema, p));
    const message = base;
    const second = await startTurn(
      { conversationId: "", text: "", message },
      { blobs: new Map([...first.reader.blobs].filter(([id]) => id !== toHex(roots[0]!))) },
    );
    expect(await second.reader.end()).toEqual({});
    expect(second.reader.text()).toBe("recovered answer");
    expect(second.reader.kinds()).toContain("kvServerMessage");

    const [one, two] = await scenario.requests(2);
    // The first request's messages, plus the first answer, are the recovered prefix.
    expect(two!.body.startsWith(messagesPrefix(one!.body))).toBe(true);
    const messages = (JSON.parse(two!.body) as { messages: { role: string; content: string }[] }).messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[2]!.content).toBe("first answer");
  });

  it("branches the history before an earlier message that is re-sent with new text", async () => {
    const scenario = await createScenario([chatText(["one"]), chatText(["two"]), chatText(["edited"])]);
    const conversationId = crypto.randomUUID();
    for (const [id, text] of [
      ["m1", `first ${scenario.marker}`],
      ["m2", "second"],
      ["m1", `first, edited ${scenario.marker}`],
    ] as const) {
      const { reader } = await startTurn({ conversationId, text, messageId: id });
      expect(await reader.end(), `${id}: ${text}`).toEqual({});
    }
    const requests = await scenario.requests(3);
    const third = (JSON.parse(requests[2]!.body) as { messages: { role: string; content: string }[] }).messages;
    expect(third.map((m) => m.role)).toEqual(["system", "user"]);
    expect(third[1]!.content).toContain("first, edited");
    // The prefix before the edited message (the system prompt) is unchanged.
    const firstMessages = (JSON.parse(requests[0]!.body) as { messages: { role: string; content: string }[] }).messages;
    expect(third[0]).toEqual(firstMessages[0]);
  });

  it("branches before an earlier message that is re-sent unchanged after later turns (a re-run from there)", async () => {
    const scenario = await createScenario([chatText(["a1"]), chatText(["a2"]), chatText(["a1 again"])]);
    const conversationId = crypto.randomUUID();
    for (const [id, text] of [
      ["q1", `question one ${scenario.marker}`],
      ["q2", "question two"],
      ["q1", `question one ${scenario.marker}`],
    ] as const) {
      const { reader } = await startTurn({ conversationId, text, messageId: id });
      expect(await reader.end()).toEqual({});
    }
    const [, , third] = await scenario.requests(3);
    const roles = (JSON.parse(third!.body) as { messages: { role: string }[] }).messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user"]);
  });

  it("does not duplicate a message that is re-sent unchanged after a failed attempt", async () => {
    const scenario = await createScenario([
      { status: 400, body: JSON.stringify({ error: { message: "bad request this time" } }) },
      chatText(["worked"]),
    ]);
    const conversationId = crypto.randomUUID();
    const failed = await startTurn({ conversationId, text: `retry me ${scenario.marker}`, messageId: "same" });
    expect((await failed.reader.end()).error?.code).toBe("unavailable");
    const retried = await startTurn({ conversationId, text: `retry me ${scenario.marker}`, messageId: "same" });
    expect(await retried.reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    const roles = (JSON.parse(second!.body) as { messages: { role: string }[] }).messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user"]);
  });
});

/** A run_request whose client sends `state` as its copy of the conversation. */
function withClientCopy(opts: Parameters<typeof runRequest>[0], state: ConversationStateStructure) {
  const message = runRequest(opts);
  if (message.message.case !== "runRequest") throw new Error("unreachable");
  message.message.value.conversationState = state;
  return message;
}

type Sent = { messages: { role: string; content: string }[] };

describe("the client's copy wins", () => {
  it("takes a replacing run_request's cropped conversation_state over the longer stored history", async () => {
    const scenario = await createScenario([chatText(["a1"]), chatText(["a2"]), { steps: [{ hang: true }] }, chatText(["a2, edited"])]);
    const conversationId = crypto.randomUUID();
    const first = await startTurn({ conversationId, text: `q1 ${scenario.marker}`, messageId: "q1" });
    expect(await first.reader.end()).toEqual({});
    const afterFirst = first.reader.checkpoints().at(-1)!;
    const second = await startTurn({ conversationId, text: "q2", messageId: "q2" });
    expect(await second.reader.end()).toEqual({});

    // A third turn is running when the user edits q2: Cursor sends a new run_request on the
    // same request, with its copy cropped to before q2 and the edit as a new message.
    const third = await startTurn({ conversationId, text: "q3", messageId: "q3" });
    await scenario.requests(3);
    await appendOk(third.requestId, "next", withClientCopy({ conversationId, text: "q2, edited", messageId: "q2-edit" }, afterFirst));
    expect(await third.reader.end()).toEqual({});
    expect(third.reader.text()).toBe("a2, edited");

    const requests = await scenario.requests(4);
    const sent = (JSON.parse(requests[3]!.body) as Sent).messages;
    expect(sent.map((m) => [m.role, m.content.replace(` ${scenario.marker}`, "")])).toEqual([
      ["system", expect.any(String)],
      ["user", "q1"],
      ["assistant", "a1"],
      ["user", "q2, edited"],
    ]);
    // The client's next copy is the cropped history and the new turn: the replaced messages are gone from it.
    expect(third.reader.checkpoints().at(-1)!.rootPromptMessagesJson).toHaveLength(5);
  });

  it("keeps the stored history when the client's shorter copy is not a prefix of it", async () => {
    const scenario = await createScenario([chatText(["elsewhere"]), chatText(["here"]), chatText(["and here"]), chatText(["still here"])]);
    const other = await startTurn({ conversationId: crypto.randomUUID(), text: `another conversation ${scenario.marker}` });
    expect(await other.reader.end()).toEqual({});
    const conversationId = crypto.randomUUID();
    for (const text of [`this conversation ${scenario.marker}`, "more"]) {
      const { reader } = await startTurn({ conversationId, text });
      expect(await reader.end()).toEqual({});
    }

    // Three roots of another conversation, against five stored: same length as a crop, other messages.
    const foreign = other.reader.checkpoints().at(-1)!;
    const next = await startTurn({ conversationId, text: "", message: withClientCopy({ conversationId, text: "and then?" }, foreign) });
    expect(await next.reader.end()).toEqual({});
    const [, , , fourth] = await scenario.requests(4);
    const contents = (JSON.parse(fourth!.body) as Sent).messages.map((m) => m.content);
    expect(contents.slice(1)).toEqual([`this conversation ${scenario.marker}`, "here", "more", "and here", "and then?"]);
  });

  it("keeps a failed turn's message when the client's copy is its last checkpoint, from before that turn", async () => {
    const scenario = await createScenario([chatText(["a1"]), httpError(400, "not this time"), chatText(["a3"])]);
    const conversationId = crypto.randomUUID();
    const first = await startTurn({ conversationId, text: `q1 ${scenario.marker}` });
    expect(await first.reader.end()).toEqual({});
    const failed = await startTurn({ conversationId, text: "q2" });
    expect((await failed.reader.end()).error?.code).toBe("unavailable");

    // A failed turn sends no checkpoint: the client's copy is still the first turn's, and in step.
    const copy = first.reader.checkpoints().at(-1)!;
    const next = await startTurn({ conversationId, text: "", message: withClientCopy({ conversationId, text: "q3" }, copy) });
    expect(await next.reader.end()).toEqual({});
    const [, , third] = await scenario.requests(3);
    const contents = (JSON.parse(third!.body) as Sent).messages.map((m) => m.content);
    expect(contents.slice(1)).toEqual([`q1 ${scenario.marker}`, "a1", "q2", "q3"]);
  });
});

describe("long messages", () => {
  it("reads a user message that Cursor sent as a text blob id, fetching the blob from the client", async () => {
    const scenario = await createScenario([chatText(["read it"])]);
    const text = `a long pasted message ${"lorem ipsum ".repeat(50)} ${scenario.marker}`;
    const data = new TextEncoder().encode(text);
    const id = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
    const message = runRequest({ conversationId: crypto.randomUUID(), text: "" });
    if (message.message.case !== "runRequest" || message.message.value.action?.action.case !== "userMessageAction")
      throw new Error("unreachable");
    message.message.value.action.action.value.userMessage!.textBlobId = id;
    const { reader } = await startTurn({ conversationId: "", text: "", message }, { blobs: new Map([[toHex(id), data]]) });
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    const last = (JSON.parse(request!.body) as { messages: { role: string; content: string }[] }).messages.at(-1)!;
    expect(last).toEqual({ role: "user", content: text });
  });
});

describe("resume", () => {
  it("runs the tool calls a cancelled round left pending before any model call on resume_action", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "pending-read", name: "Read", args: ['{"path":"/later"}'] }]),
      chatText(["resumed and read it"]),
    ]);
    const conversationId = crypto.randomUUID();
    const firstExec = deferred<ExecServerMessage>();
    const first = await startTurn({ conversationId, text: `resume me ${scenario.marker}` }, { onExec: (e) => firstExec.resolve(e) });
    await firstExec.promise;
    await first.reader.send(
      clientMessage({ message: { case: "conversationAction", value: { action: { case: "cancelAction", value: {} } } } }),
    );
    expect((await first.reader.end()).error?.code).toBe("canceled");

    const resume = clientMessage({
      message: {
        case: "runRequest",
        value: { conversationId, requestedModel: { modelId: "fake-model" }, action: { action: { case: "resumeAction", value: {} } } },
      },
    });
    const execs: ExecServerMessage[] = [];
    const second = await startTurn(
      { conversationId: "", text: "", message: resume },
      {
        onExec: (e, r) => {
          execs.push(e);
          return r.send(readSuccess(e, "late content"));
        },
      },
    );
    expect(await second.reader.end()).toEqual({});
    expect(execs.map((e) => e.message.value)).toMatchObject([{ path: "/later", toolCallId: "pending-read" }]);
    const kinds = second.reader.kinds();
    expect(kinds.indexOf("execServerMessage")).toBeLessThan(kinds.indexOf("textDelta"));
    const requests = await scenario.requests(2);
    expect(requests).toHaveLength(2);
    const last = (JSON.parse(requests[1]!.body) as { messages: { role: string; content: string }[] }).messages.at(-1)!;
    expect(last.role).toBe("tool");
    expect(last.content).toContain("late content");
  });
  it("runs again only the calls without a result when the client resumes from its staged checkpoint", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "read-done", name: "Read", args: ['{"path":"/done"}'] },
        { id: "read-open", name: "Read", args: ['{"path":"/open"}'] },
      ]),
      chatText(["both read"]),
    ]);
    const conversationId = crypto.randomUUID();
    const secondExec = deferred<void>();
    const first = await startTurn(
      { conversationId, text: `two reads ${scenario.marker}` },
      {
        onExec: (e, r) => {
          const path = (e.message.value as { path: string }).path;
          if (path === "/done") return r.send(readSuccess(e, "done content"));
          secondExec.resolve();
        },
      },
    );
    await secondExec.promise;
    // Cancelled once the first result is stored: the staged checkpoint the client holds has neither.
    await first.reader.until((f) => updateCase(f) === "toolCallCompleted", "the first result");
    await first.reader.send(
      clientMessage({ message: { case: "conversationAction", value: { action: { case: "cancelAction", value: {} } } } }),
    );
    expect((await first.reader.end()).error?.code).toBe("canceled");

    const resume = clientMessage({
      message: {
        case: "runRequest",
        value: {
          conversationId,
          requestedModel: { modelId: "fake-model" },
          conversationState: first.reader.checkpoints().at(-1)!,
          action: { action: { case: "resumeAction", value: {} } },
        },
      },
    });
    const paths: string[] = [];
    const second = await startTurn(
      { conversationId: "", text: "", message: resume },
      {
        onExec: (e, r) => {
          paths.push((e.message.value as { path: string }).path);
          return r.send(readSuccess(e, "open content"));
        },
      },
    );
    expect(await second.reader.end()).toEqual({});
    expect(paths).toEqual(["/open"]);
  });
});
