// Write and StrReplace: a hidden read, the edit computed on the server, then a write.
import { describe, expect, it } from "vitest";
import type { ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { readSuccess, writeSuccess } from "../../support/exec-replies.ts";

interface ChatRequest {
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
}

const parse = (body: string) => JSON.parse(body) as ChatRequest;

describe("edits", () => {
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
});
