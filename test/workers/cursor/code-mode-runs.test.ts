// Code mode in Cursor runs (docs/code-mode.md#cursor-runs): a code_mode model gets exec
// and wait; a cell's tools are the client's, relayed with their cards; the model reads
// Codex's result format; cells outlive model steps, die with a cancelled run, and a
// restarted conversation object says its runtime was replaced.
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { conversationName } from "../../../src/core/object-names.ts";
import { anthropicStream } from "../../fixtures/anthropic/stream.ts";
import { responsesText } from "../../fixtures/openai-responses/stream.ts";
import {
  callOutput,
  codeModeUser,
  execCall,
  grepFiles,
  waitCall,
  withoutWallTime,
  type CodeModeUser,
} from "../../support/code-mode-runs.ts";
import { appendOk, clientMessage, runRequest, startTurn, type ClientBehaviour } from "../../support/cursor-client.ts";
import { deferred } from "../../support/deferred.ts";
import { readSuccess } from "../../support/exec-replies.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { toolsJson } from "../../support/prefix.ts";

let user: CodeModeUser;
beforeAll(async () => {
  user = await codeModeUser();
});

const REPLACED =
  "The exec runtime was replaced. Stored values and running cells were lost. Prior external tool operations may have completed; inspect their results before retrying. You may continue with a fresh exec call.";
const cancelAction = () =>
  clientMessage({ message: { case: "conversationAction", value: { action: { case: "cancelAction", value: {} } } } });

/** A client that answers Read with `content of <path>` and Grep with one file. */
function answering(execs: ExecServerMessage[] = []): ClientBehaviour {
  return {
    headers: user.headers,
    onExec: (exec, reader) => {
      execs.push(exec);
      if (exec.message.case === "readArgs") return reader.send(readSuccess(exec, `content of ${exec.message.value.path}`));
      if (exec.message.case === "grepArgs") return reader.send(grepFiles(exec, ["src/a.ts"]));
    },
  };
}

type Json = Record<string, unknown>;

describe("code mode in a Cursor run", () => {
  it("runs a cell whose tools.Read and tools.Grep reach the client with their cards, and gives the model the formatted output", async () => {
    const source = [
      '// @exec: {"yield_time_ms": 5000}',
      'const file = await tools.Read({ path: "/src/a.ts" });',
      'const found = await tools.Grep({ pattern: "export", path: "/src" });',
      "text(file);",
      "text(found);",
    ].join("\n");
    const scenario = await createScenario([execCall("openai-responses", "call-exec", source), responsesText(["done"])]);
    const execs: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `look ${scenario.marker}`, model: user.models["openai-responses"] },
      answering(execs),
    );
    expect(await reader.end()).toEqual({});

    // The cell's calls went out as ordinary execs, each under its own tool call id.
    expect(execs.map((e) => e.message.case)).toEqual(["readArgs", "grepArgs"]);
    const nestedIds = execs.map((e) => (e.message.value as { toolCallId: string }).toolCallId);
    for (const id of nestedIds) expect(id).toMatch(/^exec-/);
    // Each shows as its usual card, started and completed, as does exec itself.
    const cards = (kind: string) =>
      reader
        .updates()
        .filter((u) => u.case === kind)
        .map((u) => u.value as { callId: string; toolCall: { tool: { case: string } } });
    const started = cards("toolCallStarted").map((c) => [c.callId, c.toolCall.tool.case]);
    expect(started).toEqual([
      ["call-exec", "mcpToolCall"],
      [nestedIds[0], "readToolCall"],
      [nestedIds[1], "grepToolCall"],
    ]);
    expect(cards("toolCallCompleted").map((c) => c.callId)).toEqual([nestedIds[0], nestedIds[1], "call-exec"]);

    const [first, second] = await scenario.requests(2);
    const exec = (JSON.parse(first!.body).tools as Json[]).find((t) => t.name === "exec");
    expect(exec).toMatchObject({ type: "custom", format: { type: "grammar", syntax: "lark" } });
    expect(String(exec?.description)).toContain("Read(args: { path: string;");
    const input = JSON.parse(second!.body).input as Json[];
    expect(input.find((i) => i.type === "custom_tool_call")).toMatchObject({ call_id: "call-exec", name: "exec", input: source });
    expect(input.find((i) => i.call_id === "call-exec" && i.type !== "custom_tool_call")?.type).toBe("custom_tool_call_output");
    const wait = (JSON.parse(first!.body).tools as Json[]).find((t) => t.name === "wait");
    expect(wait).toMatchObject({ type: "function", strict: false, parameters: { required: ["cell_id"], additionalProperties: false } });
    expect(Object.keys((wait!.parameters as { properties: Json }).properties)).toEqual([
      "cell_id",
      "yield_time_ms",
      "max_tokens",
      "terminate",
    ]);
    const output = withoutWallTime(callOutput("openai-responses", second!.body, "call-exec"));
    expect(output).toMatch(/^Script completed\nWall time N seconds\nOutput:\n {5}1\|content of \/src\/a\.ts\n/);
    expect(output).toContain("src/a.ts");
  });

  it("leaves a yielded cell running for wait, which returns only the new output and then the end", async () => {
    const source = [
      'text("before");',
      "yield_control();",
      'const late = await tools.Read({ path: "/late" });',
      'text("after " + late);',
    ].join("\n");
    const scenario = await createScenario([
      execCall("openai-chat", "call-exec", source),
      waitCall("openai-chat", "call-wait", { cell_id: "1", yield_time_ms: 10_000 }),
      chatText(["finished"]),
    ]);
    const readGate = deferred();
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `yield ${scenario.marker}`, model: user.models["openai-chat"] },
      {
        headers: user.headers,
        onExec: async (exec, r) => {
          await readGate.promise;
          return r.send(readSuccess(exec, "line"));
        },
      },
    );
    const [, afterExec] = await scenario.requests(2);
    expect(withoutWallTime(callOutput("openai-chat", afterExec!.body, "call-exec"))).toBe(
      "Script running with cell ID 1\nWall time N seconds\nOutput:\nbefore",
    );
    readGate.resolve();
    expect(await reader.end()).toEqual({});
    const [, , afterWait] = await scenario.requests(3);
    expect(withoutWallTime(callOutput("openai-chat", afterWait!.body, "call-wait"))).toBe(
      "Script completed\nWall time N seconds\nOutput:\nafter      1|line",
    );
  });

  it("offers exec as a function taking the source to Anthropic, and runs the cell the same way", async () => {
    const scenario = await createScenario([
      execCall("anthropic", "toolu_exec", 'text(await tools.Read({ path: "/b.ts" }));'),
      anthropicStream({ text: ["read"] }),
    ]);
    const execs: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `anthropic ${scenario.marker}`, model: user.models.anthropic },
      answering(execs),
    );
    expect(await reader.end()).toEqual({});
    expect(execs.map((e) => e.message.case)).toEqual(["readArgs"]);
    const [first, second] = await scenario.requests(2);
    const exec = (JSON.parse(first!.body).tools as Json[]).find((t) => t.name === "exec");
    expect(exec?.input_schema).toEqual({
      type: "object",
      properties: { source: { type: "string", description: expect.any(String) } },
      required: ["source"],
      additionalProperties: false,
    });
    expect(withoutWallTime(callOutput("anthropic", second!.body, "toolu_exec"))).toBe(
      "Script completed\nWall time N seconds\nOutput:\n     1|content of /b.ts",
    );
  });

  it("gives a notification to the model as an extra output of the exec call, before its result", async () => {
    const scenario = await createScenario([execCall("openai-chat", "call-exec", 'notify("halfway");\ntext("done");'), chatText(["ok"])]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `notify ${scenario.marker}`, model: user.models["openai-chat"] },
      answering(),
    );
    expect(await reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    const results = (JSON.parse(second!.body).messages as Json[]).filter((m) => m.role === "tool");
    expect(results).toHaveLength(1);
    expect(withoutWallTime(results[0]!.content as string)).toBe("halfway\nScript completed\nWall time N seconds\nOutput:\ndone");
  });

  it("gives a refused pragma back to the model as the exec call's error, with Codex's text", async () => {
    const scenario = await createScenario([execCall("openai-chat", "call-exec", '// @exec: {"timeout": 5}\ntext(1);'), chatText(["ok"])]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `pragma ${scenario.marker}`, model: user.models["openai-chat"] },
      answering(),
    );
    expect(await reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    expect(callOutput("openai-chat", second!.body, "call-exec")).toBe(
      "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `timeout`",
    );
  });

  it("terminates the cells of a cancelled run", async () => {
    const conversationId = crypto.randomUUID();
    const modelWaits = { steps: [{ gate: "never" }] };
    const scenario = await createScenario([
      execCall("openai-chat", "call-exec", 'text("up");\nyield_control();\nawait new Promise(() => {});'),
      modelWaits,
      waitCall("openai-chat", "call-wait", { cell_id: "1" }),
      chatText(["gone"]),
    ]);
    const one = await startTurn({ conversationId, text: `cancel ${scenario.marker}`, model: user.models["openai-chat"] }, answering());
    await scenario.reached("never");
    await one.reader.send(cancelAction());
    expect((await one.reader.end()).error?.code).toBe("canceled");

    const two = await startTurn({ conversationId, text: "is it there?", model: user.models["openai-chat"] }, answering());
    expect(await two.reader.end()).toEqual({});
    const [, , , afterWait] = await scenario.requests(4);
    expect(withoutWallTime(callOutput("openai-chat", afterWait!.body, "call-wait"))).toBe(
      "Script failed\nWall time N seconds\nOutput:\nScript error:\nexec cell 1 not found",
    );
  });

  it("terminates the cells of a run that a newer run replaces, before the newer run can reach them", async () => {
    const conversationId = crypto.randomUUID();
    const model = user.models["openai-chat"];
    const scenario = await createScenario([
      execCall("openai-chat", "call-exec", 'text("up");\nyield_control();\nawait new Promise(() => {});'),
      { steps: [{ gate: "never" }] },
      waitCall("openai-chat", "call-wait", { cell_id: "1" }),
      chatText(["replaced"]),
    ]);
    const { requestId, reader } = await startTurn({ conversationId, text: `replace ${scenario.marker}`, model }, answering());
    await scenario.reached("never");
    await appendOk(requestId, "next", runRequest({ conversationId, text: "instead", model }), user.headers);
    expect(await reader.end()).toEqual({});
    const [, , , afterWait] = await scenario.requests(4);
    expect(withoutWallTime(callOutput("openai-chat", afterWait!.body, "call-wait"))).toBe(
      "Script failed\nWall time N seconds\nOutput:\nScript error:\nexec cell 1 not found",
    );
  });

  it("after the object restarts with a cell live, says once that the runtime was replaced, keeps stored values, and prefixes new ids", async () => {
    const conversationId = crypto.randomUUID();
    const scenario = await createScenario([
      execCall("openai-chat", "call-store", 'store("k", "kept");'),
      execCall("openai-chat", "call-live", 'text("live");\nyield_control();\nawait new Promise(() => {});'),
      chatText(["left running"]),
      waitCall("openai-chat", "call-wait-1", { cell_id: "2" }),
      execCall("openai-chat", "call-fresh", 'text(load("k"));\nyield_control();\nawait new Promise(() => {});'),
      waitCall("openai-chat", "call-wait-2", { cell_id: "2" }),
      waitCall("openai-chat", "call-stop", { cell_id: "g2:1", terminate: true }),
      chatText(["done"]),
    ]);
    const model = user.models["openai-chat"];
    const one = await startTurn({ conversationId, text: `restart ${scenario.marker}`, model }, answering());
    expect(await one.reader.end()).toEqual({});
    await runInDurableObject(env.CONVERSATION.getByName(conversationName(user.userId, conversationId)), (_instance, state) => {
      state.abort("simulated eviction");
    }).catch(() => undefined);

    const two = await startTurn({ conversationId, text: "go on", model }, answering());
    expect(await two.reader.end()).toEqual({});
    const requests = await scenario.requests(8);
    const last = requests[7]!.body;
    const out = (id: string) => withoutWallTime(callOutput("openai-chat", last, id));
    expect(out("call-live")).toBe("Script running with cell ID 2\nWall time N seconds\nOutput:\nlive");
    expect(out("call-wait-1")).toBe(REPLACED);
    expect(out("call-fresh")).toBe("Script running with cell ID g2:1\nWall time N seconds\nOutput:\nkept");
    expect(out("call-wait-2")).toBe("cell belongs to a stale code-mode host generation");
    expect(out("call-stop")).toBe("Script terminated\nWall time N seconds\nOutput:\n");
  });

  it("offers byte-identical tool definitions on every request of a conversation, with exec and wait last", async () => {
    const mcpTools = [
      { name: "lookup", toolName: "lookup", providerIdentifier: "docs", description: "Look a term up.", inputSchemaJson: "{}" },
    ];
    const scenario = await createScenario([
      execCall("openai-chat", "call-1", 'text(await tools.Read({ path: "/a" }));'),
      chatText(["first turn"]),
      execCall("openai-chat", "call-2", 'text(await tools.Read({ path: "/b" }));'),
      chatText(["second turn"]),
    ]);
    const conversationId = crypto.randomUUID();
    const model = user.models["openai-chat"];
    const one = await startTurn({ conversationId, text: `stable ${scenario.marker}`, model, mcpTools }, answering());
    expect(await one.reader.end()).toEqual({});
    const two = await startTurn({ conversationId, text: "again", model, mcpTools }, answering());
    expect(await two.reader.end()).toEqual({});
    const requests = await scenario.requests(4);
    for (const request of requests) expect(toolsJson(request.body)).toBe(toolsJson(requests[0]!.body));
    const names = (JSON.parse(requests[0]!.body).tools as { function: { name: string; description: string } }[]).map((t) => t.function);
    expect(names.slice(-2).map((f) => f.name)).toEqual(["exec", "wait"]);
    expect(names.at(-2)?.description).toContain("mcp__docs__lookup(args: Record<string, unknown>)");
  });

  it("leaves the tools of a model without code_mode as they were", async () => {
    const scenario = await createScenario([chatText(["plain"]), chatText(["local"])]);
    const hosted = await startTurn(
      { conversationId: crypto.randomUUID(), text: `plain ${scenario.marker}`, model: user.models.plain },
      { headers: user.headers },
    );
    expect(await hosted.reader.end()).toEqual({});
    const local = await startTurn({ conversationId: crypto.randomUUID(), text: `local ${scenario.marker}`, model: "fake-model" });
    expect(await local.reader.end()).toEqual({});
    const [plain, byok] = await scenario.requests(2);
    const names = (JSON.parse(plain!.body).tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names).not.toContain("exec");
    expect(names).not.toContain("wait");
    expect(toolsJson(plain!.body)).toBe(toolsJson(byok!.body));
  });
});
