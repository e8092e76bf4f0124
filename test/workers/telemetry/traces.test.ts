// Traces of runs (docs/telemetry.md#traces): a turn's spans reach its team's OTLP collector,
// decoded here by a real receiver with the OpenTelemetry proto definitions: invoke_agent, chat
// and execute_tool spans linked as parent and child, a subagent under the Task that started it,
// GenAI attributes, the run's request id, and never a prompt, an answer or a tool's arguments.
// A collector that answers 500 or never answers leaves the turn as it was.
import { describe, expect, it } from "vitest";
import { sessionTraceIdOf, toolSpanId, traceIdOf } from "../../../src/telemetry/run-trace.ts";
import { api, expectStatus, type Member, teamWithPeople } from "../../support/admin-client.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { codeModeClient, collect, openLease } from "../../support/code-mode-host.ts";
import { readSuccess, subagentSuccess } from "../../support/exec-replies.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { createSink, type ReceivedSpan, type Sink } from "../../support/otlp-receiver.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

const SECRET_PROMPT = "the launch codes are 0000";
const SECRET_ANSWER = "an answer nobody may trace";

/** A team whose collector is `sink`, and a member with a code-mode model. */
async function tracedTeam(sink: Sink): Promise<{ member: Member; teamId: string; model: string }> {
  const { team, admin, member } = await teamWithPeople();
  const patched = expectStatus(
    await api<{ otlp: { endpoint: string; header_names: string[] } }>("PATCH", `/api/v1/teams/${team.id}`, {
      token: admin.token,
      body: { otlp: { endpoint: sink.endpoint, headers: { authorization: "Bearer collector-secret-123" } } },
    }),
    200,
  );
  expect(patched.otlp).toEqual({ endpoint: sink.endpoint, header_names: ["authorization"] });
  const credential = await storeCredential(member.token, "user", `sk-traced-${crypto.randomUUID()}`);
  const model = await storeModel(member.token, { credential_id: credential.id, scope: "user", code_mode: true });
  return { member, teamId: team.id, model: model.name };
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe("traces of a run", () => {
  it("sends a turn's spans to its team's collector: the run, each provider call, each tool call, a code-mode cell and a subagent, linked, with no text", async () => {
    const sink = await createSink();
    const { member, teamId, model } = await tracedTeam(sink);
    const auth = { authorization: `Bearer ${member.token}` };
    const cell = [
      '// @exec: {"yield_time_ms": 5000}',
      'await tools.Read({ path: "/src/secret-file-of-the-cell.ts" });',
      'text("cell output stays out of traces");',
    ].join("\n");
    const parent = await createScenario([
      chatToolCalls([
        { id: "read-1", name: "Read", args: ['{"path":"/src/secret-file.ts"}'] },
        { id: "task-1", name: "Task", args: ['{"description":"look","prompt":"a subagent prompt","subagent_type":"explore"}'] },
        { id: "exec-1", name: "exec", args: [JSON.stringify({ source: cell })] },
      ]),
      chatText([SECRET_ANSWER]),
    ]);
    const child = await createScenario([chatText(["the child's answer"])]);
    const requestId = crypto.randomUUID();
    const { reader } = await startTurn(
      { requestId, conversationId: crypto.randomUUID(), text: `${SECRET_PROMPT} ${parent.marker}`, model },
      {
        headers: auth,
        onExec: async (exec, r) => {
          if (exec.message.case === "readArgs") return r.send(readSuccess(exec, "file contents stay out of traces"));
          if (exec.message.case !== "subagentArgs") return;
          // The client runs the subagent as a request of its own, naming its parent.
          const sub = await startTurn(
            { conversationId: crypto.randomUUID(), text: `child ${child.marker}`, model },
            { headers: { ...auth, "x-parent-request-id": requestId, "x-parent-agent-tool-call-id": "task-1" } },
          );
          expect(await sub.reader.end(20_000)).toEqual({});
          return r.send(subagentSuccess(exec, "agent-1", "done"));
        },
      },
    );
    expect(await reader.end(20_000)).toEqual({});
    expect(reader.text()).toBe(SECRET_ANSWER);

    // Parent: its run, 2 chats, 3 tools and the cell's Read; child: its run and 1 chat.
    const { spans, headers } = await sink.received({ spans: 9 });
    expect(headers.authorization).toBe("Bearer collector-secret-123");
    const runs = byName(spans, "invoke_agent cursor-agent");
    const subagents = byName(spans, "invoke_agent cursor-subagent");
    expect(runs).toHaveLength(1);
    expect(subagents).toHaveLength(1);
    const run = runs[0]!;
    expect(run.traceId).toBe(traceIdOf(requestId));
    expect(run.parentSpanId).toBe("");
    expect(run.service).toBe("byok-edge");
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "fake-hosted",
      "user.id": member.user.id,
      "byok.team.id": teamId,
      "byok.request.id": requestId,
      "byok.run.status": "completed",
    });
    expect(run.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);

    const chats = spans.filter((s) => s.name === "chat fake-hosted" && s.parentSpanId === run.spanId);
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.kind).toBe(3); // client
      expect(chat.traceId).toBe(run.traceId);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "fake-hosted",
        "gen_ai.response.model": "fake", // what the provider said answered, not the name asked for
        "server.address": "127.0.0.1",
      });
      expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    }
    const tools = spans.filter((s) => s.name.startsWith("execute_tool ") && s.parentSpanId === run.spanId);
    expect(tools.map((t) => t.name).sort()).toEqual(["execute_tool Read", "execute_tool Task", "execute_tool exec"]);
    for (const tool of tools) expect(tool.attributes["gen_ai.operation.name"]).toBe("execute_tool");
    // The cell's own tool call goes through the client too: its span hangs under the cell's.
    const exec = tools.find((t) => t.name === "execute_tool exec")!;
    expect(spans.filter((s) => s.parentSpanId === exec.spanId).map((s) => s.name)).toEqual(["execute_tool Read"]);

    // The subagent's run hangs under the parent's Task span, in the parent's trace.
    const task = tools.find((t) => t.name === "execute_tool Task")!;
    expect(task.spanId).toBe(toolSpanId(requestId, "task-1"));
    const subagent = subagents[0]!;
    expect(subagent.traceId).toBe(run.traceId);
    expect(subagent.parentSpanId).toBe(task.spanId);
    expect(spans.filter((s) => s.parentSpanId === subagent.spanId).map((s) => s.name)).toEqual(["chat fake-hosted"]);

    // Each span lies within its parent's time, with its own recorded times.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const span of spans) {
      expect(span.endMs).toBeGreaterThanOrEqual(span.startMs);
      const parent = byId.get(span.parentSpanId);
      if (!parent) continue;
      expect(span.startMs).toBeGreaterThanOrEqual(parent.startMs);
      expect(span.endMs).toBeLessThanOrEqual(parent.endMs);
    }
    expect(run.startMs).toBeGreaterThan(Date.now() - 60_000);

    // No text of the conversation in any span.
    const everything = JSON.stringify(spans);
    for (const text of [
      SECRET_PROMPT,
      SECRET_ANSWER,
      "secret-file",
      "a subagent prompt",
      "cell output",
      "file contents",
      "collector-secret",
    ]) {
      expect(everything).not.toContain(text);
    }
  });

  it("marks a provider call that failed with its error.type, and the run with it", async () => {
    const sink = await createSink();
    const { member, model } = await tracedTeam(sink);
    const scenario = await createScenario([{ status: 400, body: '{"error":{"message":"bad request"}}' }]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `fail ${scenario.marker}`, model },
      { headers: { authorization: `Bearer ${member.token}` } },
    );
    expect((await reader.end(20_000)).error).toBeDefined();
    const { spans } = await sink.received({ spans: 2 });
    const chat = spans.find((s) => s.name.startsWith("chat "))!;
    expect(chat.statusCode).toBe(2);
    expect(chat.attributes["error.type"]).toBe("request");
    const run = spans.find((s) => s.name.startsWith("invoke_agent"))!;
    expect(run.statusCode).toBe(2);
    expect(run.attributes["byok.run.status"]).toBe("failed");
  });

  it("sends each cell of a standalone code-mode session as an execute_tool span, the session's cells in one trace, with no code", async () => {
    const sink = await createSink();
    const { member, teamId } = await tracedTeam(sink);
    const client = codeModeClient({ token: member.token });
    const { sessionId } = await openLease(client);
    for (const executionId of ["first", "second"]) {
      const events = await collect(
        client.execute({ sessionId, executionId, toolCallId: "c", source: 'text("a cell nobody may trace")', yieldTimeMs: 10_000n }),
      );
      expect(events[1]?.case).toBe("outcome");
    }
    const { spans } = await sink.received({ spans: 2 });
    expect(spans.map((s) => s.name)).toEqual(["execute_tool exec", "execute_tool exec"]);
    for (const span of spans) {
      expect(span.traceId).toBe(sessionTraceIdOf(sessionId));
      expect(span.parentSpanId).toBe("");
      expect(span.endMs).toBeGreaterThanOrEqual(span.startMs);
      expect(span.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "exec",
        "gen_ai.conversation.id": sessionId,
        "user.id": member.user.id,
        "byok.team.id": teamId,
        "byok.code_mode.session.id": sessionId,
      });
    }
    expect(new Set(spans.map((s) => s.attributes["gen_ai.tool.call.id"])).size).toBe(2);
    expect(JSON.stringify(spans)).not.toContain("nobody may trace");
    await client.closeSession({ sessionId });
  });

  for (const mode of ["fail", "hang"] as const) {
    it(`leaves a turn as it was when its collector ${mode === "fail" ? "answers 500" : "never answers"}, trying it a bounded number of times`, async () => {
      const sink = await createSink(mode);
      const { member, model } = await tracedTeam(sink);
      const scenario = await createScenario([chatText(["still answered"])]);
      const { reader } = await startTurn(
        { conversationId: crypto.randomUUID(), text: `collector ${mode} ${scenario.marker}`, model },
        { headers: { authorization: `Bearer ${member.token}` } },
      );
      expect(await reader.end(20_000)).toEqual({});
      expect(reader.text()).toBe("still answered");
      if (mode === "fail") {
        // Three attempts, then it gives up; never a fourth.
        expect((await sink.received({ attempts: 3 })).attempts).toBe(3);
      } else {
        expect((await sink.received({ attempts: 1 })).attempts).toBeGreaterThanOrEqual(1);
      }
    });
  }
});

describe("a team's collector setting", () => {
  it("refuses credentials in the endpoint's URL and headers byok-edge sets itself, and clears with null", async () => {
    const { team, admin } = await teamWithPeople();
    const patch = (otlp: unknown) =>
      api<{ error: { fields: { path: string }[] }; otlp: unknown }>("PATCH", `/api/v1/teams/${team.id}`, {
        token: admin.token,
        body: { otlp },
      });
    const withUser = await patch({ endpoint: "https://user:pass@collector.example.com" });
    expect(withUser.status).toBe(400);
    expect(withUser.body.error.fields[0]?.path).toBe("body.otlp.endpoint");
    const withHost = await patch({ endpoint: "https://collector.example.com", headers: { host: "elsewhere" } });
    expect(withHost.status).toBe(400);
    expect(withHost.body.error.fields[0]?.path).toBe("body.otlp.headers");
    expect((await patch({ endpoint: "https://collector.example.com", headers: { "x-honeycomb-team": "k" } })).status).toBe(200);
    const cleared = expectStatus(await patch(null), 200);
    expect(cleared.otlp).toBeNull();
    // Recorded with the header names only.
    const { entries } = expectStatus(
      await api<{ entries: { action: string; details: unknown }[] }>("GET", `/api/v1/audit?team_id=${team.id}&action=team.telemetry`, {
        token: admin.token,
      }),
      200,
    );
    expect(entries).toHaveLength(2);
    expect(JSON.stringify(entries)).toContain("x-honeycomb-team");
    expect(JSON.stringify(entries)).not.toContain('"k"');
  });
});
