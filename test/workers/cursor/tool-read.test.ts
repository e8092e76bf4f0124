// A Read relayed to the client: the cards, execs and checkpoints around it.
import { describe, expect, it } from "vitest";
import type { ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { clientMessage, startTurn } from "../../support/cursor-client.ts";
import { readSuccess } from "../../support/exec-replies.ts";

interface ChatRequest {
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
}

const parse = (body: string) => JSON.parse(body) as ChatRequest;

describe("a Read round trip", () => {
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

  it("ignores results for unknown exec ids and keeps waiting through an empty result, matching by numeric id only", async () => {
    const scenario = await createScenario([chatToolCalls([{ id: "call-x", name: "Read", args: ['{"path":"/x"}'] }]), chatText(["got it"])]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `ids ${scenario.marker}` },
      {
        onExec: async (exec, r) => {
          await r.send(readSuccess({ ...exec, id: exec.id + 1000 }, "from a stranger"));
          await r.send(clientMessage({ message: { case: "execClientMessage", value: { id: exec.id } } }));
          await r.send(readSuccess(exec, "the real content"));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    const result = parse(second!.body).messages.at(-1)!;
    expect(result.content).toContain("the real content");
    expect(result.content).not.toContain("stranger");
  });
});
