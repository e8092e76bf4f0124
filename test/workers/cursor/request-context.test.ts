// The client's request context reaches the model (docs/request-context.md):
// inline or by blob reference, fetched with get_blob or request_context_args,
// bounded waits, stored once per change so the provider prefix stays stable,
// the client's tool switches, and custom subagents as Task types.
import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  CustomSubagentPermissionMode,
  PreFetchedBlobSchema,
  RequestContextPartReferencesSchema,
  RequestContextRulesPartSchema,
  RequestContextSchema,
  RequestContextSubagentsPartSchema,
  type AgentClientMessage,
  type ExecServerMessage,
} from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import {
  clientMessage,
  runRequest,
  startTurn,
  type ClientBehaviour,
  type Frame,
  type RunRequestOptions,
} from "../../support/cursor-client.ts";
import { readSuccess, requestContextSuccess, subagentSuccess } from "../../support/exec-replies.ts";
import { deferred } from "../../support/deferred.ts";
import { messagesPrefix, toolsJson } from "../../support/prefix.ts";

type ContextInit = MessageInitShape<typeof RequestContextSchema>;
type PartsInit = MessageInitShape<typeof RequestContextPartReferencesSchema>;
type Message = { role: string; content: string };
type ToolJson = { function: { name: string; parameters: { properties: Record<string, { description: string }> } } };

const HANG = { steps: [{ hang: true as const }] };
const globalRule = (fullPath: string, content: string) => ({ fullPath, content, type: { type: { case: "global" as const, value: {} } } });

/** A user message's run_request carrying a request context inline, by reference, or both. */
function withContext(
  opts: RunRequestOptions,
  context: { inline?: ContextInit; parts?: PartsInit; prefetched?: { id: Uint8Array; value: Uint8Array }[] },
): AgentClientMessage {
  const message = runRequest(opts);
  if (message.message.case !== "runRequest" || message.message.value.action?.action.case !== "userMessageAction") {
    throw new Error("unreachable");
  }
  const run = message.message.value;
  const action = run.action!;
  if (context.inline && action.action.case === "userMessageAction")
    action.action.value.requestContext = create(RequestContextSchema, context.inline);
  if (context.parts) action.requestContextParts = create(RequestContextPartReferencesSchema, context.parts);
  run.preFetchedBlobs = (context.prefetched ?? []).map((b) => create(PreFetchedBlobSchema, b));
  return message;
}

/** A serialized part message and its content address. */
async function partBlob<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>) {
  const data = toBinary(schema, create(schema, init));
  const id = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return { id, data, hex: toHex(id) };
}

const messagesOf = (body: string) => (JSON.parse(body) as { messages: Message[] }).messages;
const contextMessages = (body: string) => messagesOf(body).filter((m) => m.content.startsWith("<request_context>"));
const toolsOf = (body: string) => (JSON.parse(body) as { tools?: ToolJson[] }).tools ?? [];

function getBlobIds(frames: Frame[]): string[] {
  return frames.flatMap((f) =>
    f.kind === "message" && f.message.message.case === "kvServerMessage" && f.message.message.value.message.case === "getBlobArgs"
      ? [toHex(f.message.message.value.message.value.blobId)]
      : [],
  );
}

function contextExecs(frames: Frame[]): ExecServerMessage[] {
  return frames.flatMap((f) =>
    f.kind === "message" && f.message.message.case === "execServerMessage" && f.message.message.value.message.case === "requestContextArgs"
      ? [f.message.message.value]
      : [],
  );
}

/** Answers request_context_args with `context`, and nothing else. */
const answeringContext =
  (context: ContextInit): ClientBehaviour["onExec"] =>
  (exec, reader) => {
    if (exec.message.case === "requestContextArgs") return reader.send(requestContextSuccess(exec, context));
  };

describe("request context", () => {
  it("puts a rule sent inline with the user message before the user's text", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const message = withContext(
      { conversationId: crypto.randomUUID(), text: `question ${scenario.marker}` },
      { inline: { rules: [globalRule("/w/.cursor/rules/inline.mdc", "Always answer in haiku.")] } },
    );
    const { reader } = await startTurn({ conversationId: "", text: "", message });
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    const messages = messagesOf(request!.body);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(messages[1]!.content).toContain("Always answer in haiku.");
    expect(messages[2]!.content).toBe(`question ${scenario.marker}`);
  });

  it("puts a rule sent by blob reference before the user's text, reading the blob with get_blob", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const rules = await partBlob(RequestContextRulesPartSchema, {
      rules: [globalRule("/w/AGENTS.md", "Run the tests before you finish.")],
    });
    const message = withContext(
      { conversationId: crypto.randomUUID(), text: `question ${scenario.marker}` },
      { parts: { rulesBlobId: rules.id, rulesByteLength: rules.data.byteLength } },
    );
    const { reader } = await startTurn({ conversationId: "", text: "", message }, { blobs: new Map([[rules.hex, rules.data]]) });
    expect(await reader.end()).toEqual({});
    expect(getBlobIds(reader.frames)).toEqual([rules.hex]);
    const [request] = await scenario.requests(1);
    const messages = messagesOf(request!.body);
    expect(messages.at(-2)!.content).toContain('<rule path="/w/AGENTS.md" applies="always">\nRun the tests before you finish.\n</rule>');
    expect(messages.at(-1)!.content).toBe(`question ${scenario.marker}`);
  });

  it("reads a referenced part from pre_fetched_blobs without asking the client", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const rules = await partBlob(RequestContextRulesPartSchema, { cloudRule: "Prefer small commits." });
    const message = withContext(
      { conversationId: crypto.randomUUID(), text: `question ${scenario.marker}` },
      { parts: { rulesBlobId: rules.id, rulesByteLength: rules.data.byteLength }, prefetched: [{ id: rules.id, value: rules.data }] },
    );
    const { reader } = await startTurn({ conversationId: "", text: "", message });
    expect(await reader.end()).toEqual({});
    expect(getBlobIds(reader.frames)).toEqual([]);
    expect(contextExecs(reader.frames)).toEqual([]);
    const [request] = await scenario.requests(1);
    expect(contextMessages(request!.body)[0]!.content).toContain("Prefer small commits.");
  });

  it.each(["empty", "error"] as const)(
    "asks with request_context_args for a part whose blob the client does not hold (get_blob answers %s)",
    async (missingBlob) => {
      const scenario = await createScenario([chatText(["ok"])]);
      const rules = await partBlob(RequestContextRulesPartSchema, { rules: [globalRule("/w/gone.mdc", "stale copy")] });
      const message = withContext(
        { conversationId: crypto.randomUUID(), text: `question ${scenario.marker}` },
        { parts: { rulesBlobId: rules.id, rulesByteLength: rules.data.byteLength } },
      );
      const { reader } = await startTurn(
        { conversationId: "", text: "", message },
        { missingBlob, onExec: answeringContext({ rules: [globalRule("/w/fresh.mdc", "Fresh rule from the client.")] }) },
      );
      expect(await reader.end()).toEqual({});
      expect(getBlobIds(reader.frames)).toEqual([rules.hex]);
      expect(contextExecs(reader.frames)).toHaveLength(1);
      const [request] = await scenario.requests(1);
      const [context] = contextMessages(request!.body);
      expect(context!.content).toContain("Fresh rule from the client.");
      expect(messagesOf(request!.body).at(-1)!.content).toBe(`question ${scenario.marker}`);
    },
  );

  it("fails the run with deadline_exceeded, before any model call, when the client never answers request_context_args", async () => {
    const scenario = await createScenario([chatText(["never"])]);
    const rules = await partBlob(RequestContextRulesPartSchema, { cloudRule: "x" });
    const message = withContext(
      { conversationId: crypto.randomUUID(), text: `question ${scenario.marker}` },
      { parts: { rulesBlobId: rules.id, rulesByteLength: rules.data.byteLength } },
    );
    const { reader } = await startTurn({ conversationId: "", text: "", message }, { onExec: () => {} });
    const end = await reader.end();
    expect(end.error?.code).toBe("deadline_exceeded");
    expect(end.error?.message).toBe("the client did not send its request context within 2 s");
    // The unanswered exec is aborted on the client, and no model call was made.
    const [exec] = contextExecs(reader.frames);
    expect(
      reader.frames.some(
        (f) =>
          f.kind === "message" &&
          f.message.message.case === "execServerControlMessage" &&
          f.message.message.value.message.value?.id === exec!.id,
      ),
    ).toBe(true);
    expect(await scenario.requests(0)).toHaveLength(0);
  });

  it("fails the run with deadline_exceeded when the client never answers get_blob for a context part", async () => {
    const scenario = await createScenario([chatText(["never"])]);
    const rules = await partBlob(RequestContextRulesPartSchema, { cloudRule: "x" });
    const message = withContext(
      { conversationId: crypto.randomUUID(), text: `question ${scenario.marker}` },
      { parts: { rulesBlobId: rules.id, rulesByteLength: rules.data.byteLength } },
    );
    const { reader } = await startTurn({ conversationId: "", text: "", message }, { missingBlob: "ignore" });
    const end = await reader.end();
    expect(end.error).toMatchObject({
      code: "deadline_exceeded",
      message: "the client did not send the request context's rules part within 2 s",
    });
  });

  it("states the workspace path, OS and shell of the client's environment from dynamic_context", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const message = withContext(
      { conversationId: crypto.randomUUID(), text: `where am I ${scenario.marker}` },
      {
        parts: {
          dynamicContext: {
            env: { workspacePaths: ["/Users/dev/shop"], osVersion: "linux 6.8.0", shell: "/usr/bin/fish", timeZone: "Europe/Berlin" },
          },
        },
      },
    );
    const { reader } = await startTurn({ conversationId: "", text: "", message });
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    const [context] = contextMessages(request!.body);
    expect(context!.content).toContain("Workspace folders:\n- /Users/dev/shop");
    expect(context!.content).toContain("Operating system: linux 6.8.0");
    expect(context!.content).toContain("Shell: /usr/bin/fish");
    expect(context!.content).toContain("Time zone: Europe/Berlin");
  });

  it("keeps the first turn's request as a byte-identical prefix when the next turn sends the same context, and appends a changed one", async () => {
    const scenario = await createScenario([chatText(["one"]), chatText(["two"]), chatText(["three"])]);
    const conversationId = crypto.randomUUID();
    const same: ContextInit = { rules: [globalRule("/w/a.mdc", "Rule A.")], env: { workspacePaths: ["/w"], shell: "zsh" } };
    const changed: ContextInit = { rules: [globalRule("/w/a.mdc", "Rule A, edited.")], env: { workspacePaths: ["/w"], shell: "zsh" } };
    for (const [text, inline] of [
      [`first ${scenario.marker}`, same],
      ["second", same],
      ["third", changed],
    ] as const) {
      const { reader } = await startTurn({ conversationId: "", text: "", message: withContext({ conversationId, text }, { inline }) });
      expect(await reader.end(), text).toEqual({});
    }
    const [one, two, three] = await scenario.requests(3);
    expect(two!.body.startsWith(messagesPrefix(one!.body))).toBe(true);
    expect(toolsJson(two!.body)).toBe(toolsJson(one!.body));
    expect(contextMessages(two!.body)).toHaveLength(1);
    expect(three!.body.startsWith(messagesPrefix(two!.body))).toBe(true);
    const contexts = contextMessages(three!.body);
    expect(contexts).toHaveLength(2);
    expect(contexts[1]!.content).toContain("Rule A, edited.");
    expect(messagesOf(three!.body).slice(-2)).toEqual([contexts[1], { role: "user", content: "third" }]);
  });

  it("does not fetch a context part again on a later turn of the conversation", async () => {
    const scenario = await createScenario([chatText(["one"]), chatText(["two"])]);
    const conversationId = crypto.randomUUID();
    const rules = await partBlob(RequestContextRulesPartSchema, { rules: [globalRule("/w/r.mdc", "Keep it short.")] });
    const subagents = await partBlob(RequestContextSubagentsPartSchema, { customSubagents: [{ name: "stale" }] });
    const parts = {
      rulesBlobId: rules.id,
      rulesByteLength: rules.data.byteLength,
      subagentsBlobId: subagents.id,
      subagentsByteLength: subagents.data.byteLength,
    };
    // Turn one: the rules come by get_blob; the client no longer holds the subagents blob, so it sends them with request_context_args.
    const behaviour: ClientBehaviour = {
      blobs: new Map([[rules.hex, rules.data]]),
      onExec: answeringContext({ customSubagents: [{ name: "docs-writer", description: "Writes docs" }] }),
    };
    const first = await startTurn(
      { conversationId: "", text: "", message: withContext({ conversationId, text: `one ${scenario.marker}` }, { parts }) },
      behaviour,
    );
    expect(await first.reader.end()).toEqual({});
    expect(getBlobIds(first.reader.frames).sort()).toEqual([rules.hex, subagents.hex].sort());
    expect(contextExecs(first.reader.frames)).toHaveLength(1);

    const second = await startTurn(
      { conversationId: "", text: "", message: withContext({ conversationId, text: "two" }, { parts }) },
      behaviour,
    );
    expect(await second.reader.end()).toEqual({});
    expect(getBlobIds(second.reader.frames)).toEqual([]);
    expect(contextExecs(second.reader.frames)).toEqual([]);
    const [one, two] = await scenario.requests(2);
    expect(two!.body.startsWith(messagesPrefix(one!.body))).toBe(true);
    const task = toolsOf(two!.body).find((t) => t.function.name === "Task")!;
    expect(task.function.parameters.properties.subagent_type!.description).toContain('"docs-writer" (Writes docs)');
  });

  it("does not offer WebFetch, ReadLints or WebSearch when the client switched them off", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const message = withContext(
      { conversationId: crypto.randomUUID(), text: `no web ${scenario.marker}` },
      { parts: { dynamicContext: { webSearchEnabled: false, webFetchEnabled: false, readLintsEnabled: false } } },
    );
    const { reader } = await startTurn({ conversationId: "", text: "", message });
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    const names = toolsOf(request!.body).map((t) => t.function.name);
    expect(names).toContain("Read");
    expect(names).toContain("Task");
    for (const off of ["WebFetch", "ReadLints", "WebSearch"]) expect(names).not.toContain(off);
    // Switches alone say nothing to the model.
    expect(contextMessages(request!.body)).toEqual([]);
  });

  it("offers a custom subagent as a Task subagent type and sends its prompt, model and permissions with the Task", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "task-r", name: "Task", args: ['{"description":"Review","prompt":"Review the last commit.","subagent_type":"reviewer"}'] },
      ]),
      chatText(["reviewed"]),
    ]);
    const reviewer = {
      name: "reviewer",
      description: "Reviews changes for bugs",
      prompt: "You are a strict code reviewer.",
      model: "fake-small",
      permissionMode: CustomSubagentPermissionMode.READONLY,
    };
    const message = withContext(
      { conversationId: crypto.randomUUID(), text: `review ${scenario.marker}` },
      { inline: { customSubagents: [reviewer] } },
    );
    const execs: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: "", text: "", message },
      {
        onExec: (exec, r) => {
          execs.push(exec);
          return r.send(subagentSuccess(exec, "agent-r", "no bugs"));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    const task = toolsOf(request!.body).find((t) => t.function.name === "Task")!;
    expect(task.function.parameters.properties.subagent_type!.description).toContain('"reviewer" (Reviews changes for bugs)');
    expect(execs[0]?.message.case).toBe("subagentArgs");
    const args = execs[0]!.message.value as { subagentType: string; modelId: string; prompt: string; readonly: boolean };
    expect(args.subagentType).toBe("reviewer");
    expect(args.modelId).toBe("fake-small");
    expect(args.readonly).toBe(true);
    expect(args.prompt).toBe(
      '<subagent_instructions name="reviewer">\nYou are a strict code reviewer.\n</subagent_instructions>\n\nReview the last commit.',
    );
  });

  it("puts the request context of injected user context before the injected message", async () => {
    const scenario = await createScenario([HANG, chatText(["continued"])]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `inject ${scenario.marker}` });
    await scenario.requests(1);
    await reader.send(
      clientMessage({
        message: {
          case: "conversationAction",
          value: {
            action: {
              case: "injectContextAction",
              value: {
                injectionId: "inj-ctx",
                expectedRunId: requestId,
                payload: {
                  case: "userContext",
                  value: {
                    userMessage: { text: "also look at this", messageId: "inj-user" },
                    requestContext: { rules: [globalRule("/w/injected.mdc", "Injected rule.")] },
                  },
                },
              },
            },
          },
        },
      }),
    );
    expect(await reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    const messages = messagesOf(second!.body);
    expect(messages.at(-2)!.content).toContain("Injected rule.");
    expect(messages.at(-1)).toEqual({ role: "user", content: "also look at this" });
  });

  it("puts a resume's request context after the results of the tool calls it resumes", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "left-over", name: "Read", args: ['{"path":"/w/a"}'] }]),
      chatText(["resumed"]),
    ]);
    const conversationId = crypto.randomUUID();
    const firstExec = deferred<ExecServerMessage>();
    const first = await startTurn({ conversationId, text: `start ${scenario.marker}` }, { onExec: (e) => firstExec.resolve(e) });
    await firstExec.promise;
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
          action: { action: { case: "resumeAction", value: { requestContext: { rules: [globalRule("/w/r.mdc", "Resume rule.")] } } } },
        },
      },
    });
    const second = await startTurn(
      { conversationId: "", text: "", message: resume },
      { onExec: (e, r) => r.send(readSuccess(e, "file a")) },
    );
    expect(await second.reader.end()).toEqual({});
    const [, request] = await scenario.requests(2);
    const messages = messagesOf(request!.body);
    expect(messages.at(-2)).toMatchObject({ role: "tool", content: expect.stringContaining("file a") });
    expect(messages.at(-1)!.content).toContain("Resume rule.");
  });

  it("keeps the request context in force after /summarize without sending it again", async () => {
    const id = crypto.randomUUID();
    const summary = `Summary of the talk (scenario:${id}).`;
    const scenario = await createScenario([chatText(["hi"]), chatText([summary]), chatText(["after"])], id);
    const conversationId = crypto.randomUUID();
    const inline: ContextInit = { rules: [globalRule("/w/keep.mdc", "Keep this rule.")] };
    for (const text of [`hello ${scenario.marker}`, "/summarize", "and now?"]) {
      const { reader } = await startTurn({ conversationId: "", text: "", message: withContext({ conversationId, text }, { inline }) });
      expect(await reader.end(), text).toEqual({});
    }
    const [, , third] = await scenario.requests(3);
    const messages = messagesOf(third!.body);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "user", "user"]);
    expect(messages[1]!.content).toContain("<conversation_summary>");
    expect(messages[2]!.content).toContain("Keep this rule.");
    expect(messages[3]!.content).toBe("and now?");
  });
});
