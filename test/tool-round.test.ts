// Tool rounds over HTTP: the model calls tools, the scripted Cursor client runs
// them, results come back through BidiAppend, the next model call sees them.
import { describe, expect, it } from "vitest";
import type { ExecServerMessage } from "../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, chatToolCalls, createScenario } from "./support/fake-provider.ts";
import { startTurn } from "./support/cursor-client.ts";
import { readNotFound, readSuccess, shellEvent, streamClose, writeSuccess } from "./support/exec-replies.ts";

interface ChatRequest {
  messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
}

const parse = (body: string) => JSON.parse(body) as ChatRequest;

describe("tool rounds", () => {
  it("relays a Read to the client and gives the model its result, with the cards and checkpoints in order", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "call-read", name: "Read", args: ['{"path":', '"/src/a.ts"}'] }]),
      chatText(["It exports a."]),
    ]);
    const execs: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `read it ${scenario.marker}` },
      {
        onExec: (exec, r) => {
          execs.push(exec);
          return r.send(readSuccess(exec, "export const a = 1;\n"));
        },
      },
    );
    expect(await reader.end()).toEqual({});

    expect(execs).toHaveLength(1);
    expect(execs[0]!.message.case).toBe("readArgs");
    expect(execs[0]!.message.value).toMatchObject({ path: "/src/a.ts", toolCallId: "call-read" });
    expect(execs[0]!.execId).toBe("call-read");

    const kinds = reader.kinds().filter((k) => k !== "kvServerMessage" && k !== "heartbeat");
    const first = (k: string) => kinds.indexOf(k);
    expect(first("partialToolCall")).toBeLessThan(first("conversationCheckpointUpdate"));
    expect(first("conversationCheckpointUpdate")).toBeLessThan(first("toolCallStarted"));
    expect(first("toolCallStarted")).toBeLessThan(first("execServerMessage"));
    expect(first("execServerMessage")).toBeLessThan(first("toolCallCompleted"));
    // A settled checkpoint separates the tool round from the next model output.
    const settled = kinds.indexOf("conversationCheckpointUpdate", first("toolCallCompleted"));
    expect(settled).toBeGreaterThan(first("toolCallCompleted"));
    expect(settled).toBeLessThan(first("textDelta"));

    const partial = reader.updates().find((u) => u.case === "partialToolCall")?.value as { toolCall?: { tool: { case: string } } };
    expect(partial.toolCall?.tool.case).toBe("readToolCall");
    const completed = reader.updates().find((u) => u.case === "toolCallCompleted")?.value as {
      toolCall: { tool: { case: string; value: { result?: unknown } }; startedAtMs?: bigint; completedAtMs?: bigint };
    };
    expect(completed.toolCall.tool.case).toBe("readToolCall");
    expect(completed.toolCall.tool.value.result).toBeDefined();
    expect(completed.toolCall.completedAtMs).toBeGreaterThanOrEqual(completed.toolCall.startedAtMs!);

    const [, second] = await scenario.requests(2);
    const messages = parse(second!.body).messages;
    expect(messages.at(-2)?.tool_calls?.[0]?.function.name).toBe("Read");
    expect(messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call-read" });
    expect(messages.at(-1)?.content).toContain("export const a = 1;");
  });

  it("runs two calls of one response together and commits their results in completion order", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "call-1", name: "Read", args: ['{"path":"/one"}'] },
        { id: "call-2", name: "Read", args: ['{"path":"/two"}'] },
      ]),
      chatText(["both read"]),
    ]);
    const pending: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `two reads ${scenario.marker}` },
      {
        onExec: async (exec, r) => {
          pending.push(exec);
          if (pending.length < 2) return;
          // Answer in reverse order: the second call finishes first.
          await r.send(readSuccess(pending[1]!, "two"));
          await r.send(readSuccess(pending[0]!, "one"));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(new Set(pending.map((e) => e.id)).size).toBe(2);

    const [, second] = await scenario.requests(2);
    const messages = parse(second!.body).messages;
    const assistant = messages.at(-3)!;
    expect(assistant.tool_calls?.map((c) => c.id)).toEqual(["call-1", "call-2"]);
    expect(messages.slice(-2).map((m) => m.tool_call_id)).toEqual(["call-2", "call-1"]);
  });

  it("edits a file with StrReplace: a hidden read, then a write of the text computed on the server", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "edit-1", name: "StrReplace", args: ['{"path":"/f.ts","old_string":"a = 1","new_string":"a = 2"}'] }]),
      chatText(["done"]),
    ]);
    const execs: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `edit ${scenario.marker}` },
      {
        onExec: (exec, r) => {
          execs.push(exec);
          return r.send(exec.message.case === "readArgs" ? readSuccess(exec, "const a = 1;\r\nconst b = 2;\n") : writeSuccess(exec));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(execs.map((e) => e.message.case)).toEqual(["readArgs", "writeArgs"]);
    expect(execs[1]!.id).not.toBe(execs[0]!.id);
    expect(execs[1]!.message.value).toMatchObject({ path: "/f.ts", fileText: "const a = 2;\nconst b = 2;\n", toolCallId: "edit-1" });
    const completed = reader.updates().find((u) => u.case === "toolCallCompleted")?.value as { toolCall: { tool: { case: string } } };
    expect(completed.toolCall.tool.case).toBe("editToolCall");
  });

  it("reports a StrReplace whose old_string is missing as a tool error to the model, without writing, and the run goes on", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "edit-2", name: "StrReplace", args: ['{"path":"/f.ts","old_string":"nope","new_string":"x"}'] }]),
      chatText(["I see, it is not there."]),
    ]);
    const execs: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `bad edit ${scenario.marker}` },
      {
        onExec: (exec, r) => {
          execs.push(exec);
          return r.send(readSuccess(exec, "const a = 1;\n"));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(execs.map((e) => e.message.case)).toEqual(["readArgs"]);
    const [, second] = await scenario.requests(2);
    const result = parse(second!.body).messages.at(-1)!;
    expect(result.role).toBe("tool");
    expect(result.content).toMatch(/not found|does not occur|no match/i);
    expect(reader.text()).toBe("I see, it is not there.");
  });

  it("streams shell output to the card as it arrives and gives the model the exit code", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "sh-1", name: "Shell", args: ['{"command":"echo hi"}'] }]),
      chatText(["ran"]),
    ]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `shell ${scenario.marker}` },
      {
        onExec: async (exec, r) => {
          expect(exec.message.case).toBe("shellStreamArgs");
          await r.send(shellEvent(exec, { case: "start", value: {} }));
          await r.send(shellEvent(exec, { case: "stdout", value: { data: "hi\n" } }));
          await r.send(shellEvent(exec, { case: "stderr", value: { data: "warn\n" } }));
          await r.send(shellEvent(exec, { case: "exit", value: { code: 0, cwd: "/w" } }));
          await r.send(streamClose(exec));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    const deltas = reader.updates().filter((u) => u.case === "toolCallDelta");
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    const [, second] = await scenario.requests(2);
    const result = parse(second!.body).messages.at(-1)!;
    expect(result.content).toContain("hi");
    expect(result.content).toMatch(/exit code:? 0|exited with 0|exit 0/i);
  });

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
      expect(reader.blobs.has([...id].map((b) => b.toString(16).padStart(2, "0")).join(""))).toBe(true);
    }
  });

  it("fails the run clearly when the client never acknowledges a state blob", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "r-1", name: "Read", args: ['{"path":"/x"}'] }]),
      chatText(["never"]),
    ]);
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

