// Subagents: the parent's Task becomes subagent_args with the model chosen for
// it; the child request (both parent headers) runs with the subagent tool set
// and that model; the parent gets the subagent's result.
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { SubagentModelOverrideSchema, type ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { runRequest, startTurn } from "../../support/cursor-client.ts";
import { subagentSuccess } from "../../support/exec-replies.ts";

const toolNames = (body: string) =>
  ((JSON.parse(body) as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);

describe("subagents", () => {
  it("sends Task as subagent_args with the model the Task names, and gives the parent the subagent's result", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        {
          id: "task-1",
          name: "Task",
          args: ['{"description":"Look around","prompt":"List the files","subagent_type":"explore","model":"fake-small"}'],
        },
      ]),
      chatText(["The subagent found three files."]),
    ]);
    const execs: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `delegate ${scenario.marker}` },
      {
        onExec: (exec, r) => {
          execs.push(exec);
          return r.send(subagentSuccess(exec, "agent-7", "three files: a, b, c"));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(execs[0]?.message.case).toBe("subagentArgs");
    expect(execs[0]?.message.value).toMatchObject({
      toolCallId: "task-1",
      subagentType: "explore",
      modelId: "fake-small",
      prompt: "List the files",
    });
    const [, second] = await scenario.requests(2);
    const result = (JSON.parse(second!.body) as { messages: { role: string; content: string }[] }).messages.at(-1)!;
    expect(result.content).toContain("Subagent ID: agent-7");
    expect(result.content).toContain("three files");
  });

  it("uses the client's subagent_model_overrides when the Task names no model, and the parent's model for inherit", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "t-a", name: "Task", args: ['{"description":"a","prompt":"a","subagent_type":"explore"}'] },
        { id: "t-b", name: "Task", args: ['{"description":"b","prompt":"b","subagent_type":"review","model":"inherit"}'] },
      ]),
      chatText(["ok"]),
    ]);
    const message = runRequest({ conversationId: crypto.randomUUID(), text: `overrides ${scenario.marker}` });
    if (message.message.case !== "runRequest") throw new Error("unreachable");
    message.message.value.subagentModelOverrides = [
      create(SubagentModelOverrideSchema, { subagentType: "explore", selection: { case: "model", value: { modelId: "fake-small" } } }),
    ];
    const models = new Map<string, string>();
    const { reader } = await startTurn(
      { conversationId: "", text: "", message },
      {
        onExec: (exec, r) => {
          if (exec.message.case === "subagentArgs") models.set(exec.message.value.subagentType, exec.message.value.modelId);
          return r.send(subagentSuccess(exec, `agent-${exec.id}`, "done"));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(Object.fromEntries(models)).toEqual({ explore: "fake-small", review: "fake-model" });
  });

  it("runs a child request with both parent headers on its own model and the subagent tool set", async () => {
    const scenario = await createScenario([chatText(["child answer"])]);
    const headers = { "x-parent-request-id": crypto.randomUUID(), "x-parent-agent-tool-call-id": "task-1" };
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `child ${scenario.marker}`, model: "fake-small" },
      { headers },
    );
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    expect((JSON.parse(request!.body) as { model: string }).model).toBe("fake-2");
    const tools = toolNames(request!.body);
    expect(tools).toContain("Read");
    expect(tools).not.toContain("AskQuestion");
    expect(tools).not.toContain("Task");
  });
});
