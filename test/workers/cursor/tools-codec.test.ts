// Each tool's run against a scripted Cursor client: what it sends (exec args,
// interaction queries, live deltas), how it reads the client's replies, and what
// the model and the UI card get back.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  AgentMode,
  CustomSubagentPermissionMode,
  CustomSubagentSchema,
  ExecClientMessageSchema,
  ExecServerMessageSchema,
  InteractionQuerySchema,
  InteractionResponseSchema,
  type ShellStreamSchema,
  TimeoutBehavior,
  TodoStatus,
  type AgentServerMessage,
  type ExecServerMessage,
  type InteractionQuery,
  type InteractionResponse,
  type ToolCall,
} from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { AGENT_TOOLS } from "../../../src/cursor/tools/index.ts";
import { taskToolFor } from "../../../src/cursor/tools/task.ts";
import type {
  ClientChannel,
  ExecArgs,
  ExecCall,
  ExecEvent,
  InteractionQueryInit,
  Tool,
  ToolContext,
  ToolResult,
  ToolSessionState,
} from "../../../src/cursor/tools/tool-types.ts";
import { deferred, withTimeout } from "../../support/deferred.ts";

/** The tool error when the client closes an exec stream before its result. */
const EXEC_CLOSED_EARLY = "Cursor Exec stream closed before returning a terminal result";

// ---- a scripted Cursor client (a test double of the client, not of our modules)

type ExecReplyInit = MessageInitShape<typeof ExecClientMessageSchema>["message"];
type InteractionReplyInit = MessageInitShape<typeof InteractionResponseSchema>["result"];

/** One exec as the client saw it; the test pushes its replies, scripted or one by one. */
class FakeExec implements ExecCall {
  readonly #queue: ExecEvent[] = [];
  #waiter: ((event: ExecEvent) => void) | undefined;
  #nextCalls = 0;
  readonly #callWaiters: { count: number; resolve: () => void }[] = [];

  constructor(
    readonly id: number,
    readonly args: ExecArgs,
    readonly options: { toolCallId?: string; acceptHookAdditionalContexts?: boolean } | undefined,
  ) {}

  push(event: ExecEvent): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter) waiter(event);
    else this.#queue.push(event);
  }

  next(): Promise<ExecEvent> {
    this.#nextCalls++;
    for (const w of this.#callWaiters.filter((w) => w.count <= this.#nextCalls)) w.resolve();
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  /** Resolves once the tool has asked for its `count`-th event. */
  asked(count: number): Promise<void> {
    if (this.#nextCalls >= count) return Promise.resolve();
    const gate = deferred();
    this.#callWaiters.push({ count, resolve: gate.resolve });
    return withTimeout(gate.promise, 2_000, `the tool to ask for event ${count}`);
  }

  /** The exec_server_message this exec would put on the wire. */
  get sent(): ExecServerMessage["message"] {
    return create(ExecServerMessageSchema, { id: this.id, message: this.args }).message;
  }
}

class FakeClient implements ClientChannel {
  readonly execs: FakeExec[] = [];
  readonly queries: InteractionQuery["query"][] = [];
  /** Everything the tool did, in order: "exec:<case>" and "emit:<update case>". */
  readonly log: string[] = [];
  readonly #scripts: ExecEvent[][] = [];
  readonly #answers: InteractionResponse[] = [];
  readonly #openWaiters: { index: number; resolve: (exec: FakeExec) => void }[] = [];
  #nextId = 1;

  /** Resolves with the `index`-th exec once the tool opened it (a Shell exec waits for the command's parse). */
  opened(index: number): Promise<FakeExec> {
    const exec = this.execs[index];
    if (exec) return Promise.resolve(exec);
    const gate = deferred<FakeExec>();
    this.#openWaiters.push({ index, resolve: gate.resolve });
    return withTimeout(gate.promise, 10_000, `exec ${index} to open`);
  }

  /** Replies for the next exec the tool opens (one call per exec, in order). */
  script(...events: ExecEvent[]): this {
    this.#scripts.push(events);
    return this;
  }

  answer(result: InteractionReplyInit): this {
    this.#answers.push(create(InteractionResponseSchema, { result }));
    return this;
  }

  exec(args: ExecArgs, options?: { toolCallId?: string; acceptHookAdditionalContexts?: boolean }): ExecCall {
    const exec = new FakeExec(this.#nextId++, args, options);
    for (const event of this.#scripts.shift() ?? []) exec.push(event);
    this.execs.push(exec);
    this.log.push(`exec:${exec.sent.case}`);
    for (const w of this.#openWaiters.filter((w) => w.index === this.execs.length - 1)) w.resolve(exec);
    return exec;
  }

  interaction(query: InteractionQueryInit): Promise<InteractionResponse> {
    this.#nextId++;
    this.queries.push(create(InteractionQuerySchema, { query }).query);
    const answer = this.#answers.shift();
    return answer ? Promise.resolve(answer) : Promise.reject(new Error("the test scripted no interaction answer"));
  }
}

const reply = (message: ExecReplyInit): ExecEvent => ({ kind: "message", message: create(ExecClientMessageSchema, { message }) });
const EMPTY_REPLY: ExecEvent = { kind: "message", message: create(ExecClientMessageSchema, {}) };
const STREAM_CLOSE: ExecEvent = { kind: "stream_close" };
const shellEvent = (event: MessageInitShape<typeof ShellStreamSchema>["event"]): ExecEvent =>
  reply({ case: "shellStream", value: { event } });
const readContent = (content: string, extra: { totalLines?: number; rangeApplied?: boolean } = {}): ExecEvent =>
  reply({
    case: "readResult",
    value: { result: { case: "success", value: { path: "/w/a.ts", output: { case: "content", value: content }, ...extra } } },
  });
const writeOk = (): ExecEvent => reply({ case: "writeResult", value: { result: { case: "success", value: { path: "/w/a.ts" } } } });

function setup(state: ToolSessionState = { todos: [], mode: AgentMode.AGENT }) {
  const client = new FakeClient();
  const emitted: AgentServerMessage[] = [];
  const ctx: ToolContext = {
    toolCallId: "call-1",
    modelCallId: "model-1",
    conversationId: "conv-1",
    requestId: "req-1",
    client,
    emit: (message) => {
      emitted.push(message);
      const update = message.message.case === "interactionUpdate" ? message.message.value.message.case : message.message.case;
      client.log.push(`emit:${update}`);
    },
    signal: new AbortController().signal,
    state,
    resolveSubagentModel: (requested) => (requested && requested !== "inherit" ? requested : "parent-model"),
    readBlob: () => Promise.reject(new Error("this scripted client holds no blobs")),
  };
  return { client, ctx, emitted, state };
}

function tool(name: string): Tool {
  const found = AGENT_TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/** Parses like the round does, then runs. */
function run(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const parsed = tool(name).parse(JSON.stringify(args));
  if (!parsed.ok) throw new Error(parsed.error);
  return tool(name).run(parsed.args, ctx);
}

type CardCase = NonNullable<ToolCall["tool"]["case"]>;
type CardOf<K extends CardCase> = Extract<ToolCall["tool"], { case: K }>["value"];
type SentCase = NonNullable<ExecServerMessage["message"]["case"]>;
type SentOf<K extends SentCase> = Extract<ExecServerMessage["message"], { case: K }>["value"];

/** The card's typed tool, e.g. `cardOf(result.card, "readToolCall")`. */
function cardOf<K extends CardCase>(card: ToolCall, expected: K): CardOf<K> {
  expect(card.tool.case).toBe(expected);
  const tool = card.tool;
  if (tool.case === undefined) throw new Error("the card has no tool");
  return tool.value as CardOf<K>;
}

/** What an exec sent, typed by its expected case. */
function sentAs<K extends SentCase>(exec: FakeExec | undefined, expected: K): SentOf<K> {
  expect(exec?.sent.case).toBe(expected);
  const sent = exec?.sent;
  if (sent?.case === undefined) throw new Error("nothing was sent");
  return sent.value as SentOf<K>;
}

function shellDeltas(emitted: AgentServerMessage[]): string[] {
  return emitted.flatMap((m) => {
    if (m.message.case !== "interactionUpdate" || m.message.value.message.case !== "toolCallDelta") return [];
    const update = m.message.value.message.value;
    const delta = update.toolCallDelta?.delta;
    if (delta?.case !== "shellToolCallDelta" || delta.value.delta.case === undefined) return [];
    expect(update).toMatchObject({ callId: "call-1", modelCallId: "model-1" });
    return [`${delta.value.delta.case}:${delta.value.delta.value.content}`];
  });
}

function editDeltas(emitted: AgentServerMessage[]): string[] {
  return emitted.flatMap((m) => {
    if (m.message.case !== "interactionUpdate" || m.message.value.message.case !== "toolCallDelta") return [];
    const delta = m.message.value.message.value.toolCallDelta?.delta;
    return delta?.case === "editToolCallDelta" ? [delta.value.streamContentDelta] : [];
  });
}

// ---- exec rules shared by every exec tool

describe("exec replies", () => {
  it("a stream_close before any result ends the call with a tool error", async () => {
    const { client, ctx } = setup();
    client.script(STREAM_CLOSE);
    const result = await run("Read", { path: "/w/a.ts" }, ctx);
    expect(result).toMatchObject({ isError: true, content: EXEC_CLOSED_EARLY });
    expect(cardOf(result.card, "readToolCall").result?.result).toMatchObject({ case: "error", value: { errorMessage: EXEC_CLOSED_EARLY } });
  });

  it("a throw ends the call with a tool error carrying the client's message", async () => {
    const { client, ctx } = setup();
    client.script({ kind: "throw", error: "EACCES: sandbox refused" });
    const result = await run("Delete", { path: "/w/a.ts" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("EACCES: sandbox refused");
  });

  it("an empty ExecClientMessage keeps the call pending until the real result arrives", async () => {
    const { client, ctx } = setup();
    let settled = false;
    const pending = run("Read", { path: "/w/a.ts" }, ctx).finally(() => (settled = true));
    const exec = client.execs[0]!;
    exec.push(EMPTY_REPLY);
    await exec.asked(2); // it read the empty reply and asked again
    expect(settled).toBe(false);
    exec.push(readContent("x\n"));
    expect(await pending).toMatchObject({ isError: false, content: "     1|x" });
  });

  it("a result of the wrong kind is a tool error naming both kinds", async () => {
    const { client, ctx } = setup();
    client.script(writeOk());
    const result = await run("Read", { path: "/w/a.ts" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("writeResult");
    expect(result.content).toContain("readResult");
  });
});

// ---- Read

describe("Read", () => {
  it("sends read_args and returns the content numbered from the offset", async () => {
    const { client, ctx } = setup();
    client.script(readContent("alpha\nbeta\n", { totalLines: 50, rangeApplied: true }));
    const result = await run("Read", { file_path: "/w/a.ts", offset: 10, limit: 2 }, ctx);

    expect(sentAs(client.execs[0], "readArgs")).toMatchObject({ path: "/w/a.ts", toolCallId: "call-1", offset: 10, limit: 2 });
    expect(client.execs[0]?.options).toEqual({ toolCallId: "call-1" });
    expect(result).toMatchObject({ isError: false, content: "    10|alpha\n    11|beta" });
    const card = cardOf(result.card, "readToolCall");
    expect(card.args).toMatchObject({ path: "/w/a.ts", offset: 10, limit: 2 });
    expect(card.result?.result).toMatchObject({
      case: "success",
      value: {
        path: "/w/a.ts",
        totalLines: 50,
        output: { case: "content", value: "alpha\nbeta" },
        readRange: { startLine: 10, endLine: 11 },
      },
    });
  });

  it("cuts the window itself when the client returned the whole file", async () => {
    const { client, ctx } = setup();
    client.script(readContent("1\n2\n3\n4\n5\n", { totalLines: 5, rangeApplied: false }));
    const result = await run("Read", { path: "/w/a.ts", offset: 2, limit: 2 }, ctx);
    expect(result.content).toBe("     2|2\n     3|3");
  });

  it("reports a missing file as a short tool error", async () => {
    const { client, ctx } = setup();
    client.script(reply({ case: "readResult", value: { result: { case: "fileNotFound", value: { path: "/w/nope.ts" } } } }));
    const result = await run("Read", { path: "/w/nope.ts" }, ctx);
    expect(result).toMatchObject({ isError: true, content: "File not found: /w/nope.ts" });
  });
});

// ---- Write and StrReplace

describe("StrReplace", () => {
  it("reads the file, computes the LF-normalised text, streams it, then writes it with a second exec", async () => {
    const { client, ctx, emitted } = setup();
    client.script(readContent("a\r\nold\r\nb\r\n")).script(writeOk());
    const result = await run("StrReplace", { path: "/w/a.ts", old_string: "old\r\n", new_string: "new\n" }, ctx);

    expect(client.log).toEqual(["exec:readArgs", "emit:toolCallDelta", "exec:writeArgs"]);
    const hiddenRead = sentAs(client.execs[0], "readArgs");
    expect(hiddenRead).toMatchObject({ path: "/w/a.ts", toolCallId: "call-1" });
    expect([hiddenRead.offset, hiddenRead.limit]).toEqual([undefined, undefined]);
    expect(sentAs(client.execs[1], "writeArgs")).toMatchObject({ path: "/w/a.ts", fileText: "a\nnew\nb\n", toolCallId: "call-1" });
    expect(client.execs[1]!.id).not.toBe(client.execs[0]!.id);
    expect(editDeltas(emitted)).toEqual(["a\nnew\nb\n"]);

    expect(result).toMatchObject({ isError: false, content: "Edited /w/a.ts (+1 -1 lines)" });
    const card = cardOf(result.card, "editToolCall");
    expect(card.args?.path).toBe("/w/a.ts");
    expect(card.result?.result).toMatchObject({
      case: "success",
      value: { path: "/w/a.ts", linesAdded: 1, linesRemoved: 1, beforeFullFileContent: "a\nold\nb\n", afterFullFileContent: "a\nnew\nb\n" },
    });
    const success = card.result?.result.case === "success" ? card.result.result.value : undefined;
    expect(success?.diffString).toContain("@@ -1,3 +1,3 @@\n a\n-old\n+new\n b");
  });

  it("ends with a tool error and sends no write when old_string is not in the file", async () => {
    const { client, ctx, emitted } = setup();
    client.script(readContent("a\nb\n"));
    const result = await run("StrReplace", { path: "/w/a.ts", old_string: "zzz", new_string: "y" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("old_string was not found in /w/a.ts");
    expect(client.log).toEqual(["exec:readArgs"]);
    expect(editDeltas(emitted)).toEqual([]);
  });

  it("ends with a tool error when old_string occurs more than once, and replaces all with replace_all", async () => {
    const first = setup();
    first.client.script(readContent("x = 1\nx = 1\n"));
    const ambiguous = await run("StrReplace", { path: "/w/a.ts", old_string: "x = 1", new_string: "x = 2" }, first.ctx);
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.content).toContain("occurs 2 times");
    expect(first.client.execs).toHaveLength(1);

    const second = setup();
    second.client.script(readContent("x = 1\nx = 1\n")).script(writeOk());
    const all = await run("StrReplace", { path: "/w/a.ts", old_string: "x = 1", new_string: "x = 2", replace_all: true }, second.ctx);
    expect(all.isError).toBe(false);
    expect(sentAs(second.client.execs[1], "writeArgs").fileText).toBe("x = 2\nx = 2\n");
  });

  it("treats a replacement text with $ patterns literally", async () => {
    const { client, ctx } = setup();
    client.script(readContent("price\n")).script(writeOk());
    await run("StrReplace", { path: "/w/a.ts", old_string: "price", new_string: "$& costs $1" }, ctx);
    expect(sentAs(client.execs[1], "writeArgs").fileText).toBe("$& costs $1\n");
  });
});

describe("Write", () => {
  it("creates a new file when the hidden read finds none", async () => {
    const { client, ctx, emitted } = setup();
    client
      .script(reply({ case: "readResult", value: { result: { case: "fileNotFound", value: { path: "/w/new.ts" } } } }))
      .script(writeOk());
    const result = await run("Write", { path: "/w/new.ts", contents: "one\ntwo\n" }, ctx);

    expect(client.log).toEqual(["exec:readArgs", "emit:toolCallDelta", "exec:writeArgs"]);
    expect(sentAs(client.execs[1], "writeArgs")).toMatchObject({ path: "/w/new.ts", fileText: "one\ntwo\n" });
    expect(editDeltas(emitted)).toEqual(["one\ntwo\n"]);
    expect(result).toMatchObject({ isError: false, content: "Created /w/new.ts (+2 lines)" });
    const card = cardOf(result.card, "editToolCall");
    expect(card.args).toMatchObject({ path: "/w/new.ts", streamContent: "one\ntwo\n" });
    expect(card.result?.result).toMatchObject({
      case: "success",
      value: { linesAdded: 2, linesRemoved: 0, afterFullFileContent: "one\ntwo\n" },
    });
    expect(card.result?.result.case === "success" && card.result.result.value.beforeFullFileContent).toBeUndefined();
  });

  it("reports a rejected write as a tool error with the rejected card", async () => {
    const { client, ctx } = setup();
    client
      .script(readContent("old\n"))
      .script(reply({ case: "writeResult", value: { result: { case: "rejected", value: { path: "/w/a.ts", reason: "not now" } } } }));
    const result = await run("Write", { path: "/w/a.ts", contents: "new\n" }, ctx);
    expect(result).toMatchObject({ isError: true, content: "The user rejected the edit to /w/a.ts: not now" });
    expect(cardOf(result.card, "editToolCall").result?.result.case).toBe("rejected");
  });
});

// ---- Shell

describe("Shell", () => {
  it("emits stdout and stderr deltas as they arrive, in order, then reports the exit code and output", async () => {
    const { client, ctx, emitted } = setup();
    const pending = run("Shell", { command: "make test", working_directory: "/w", description: "Runs the tests" }, ctx);
    const exec = await client.opened(0);
    exec.push(shellEvent({ case: "start", value: {} }));
    exec.push(shellEvent({ case: "stdout", value: { data: "one\n" } }));
    await exec.asked(3);
    expect(shellDeltas(emitted)).toEqual(["stdout:one\n"]); // sent before the command finished
    exec.push(shellEvent({ case: "stderr", value: { data: "warn\n" } }));
    exec.push(shellEvent({ case: "stdout", value: { data: "two\n" } }));
    exec.push(shellEvent({ case: "exit", value: { code: 0, cwd: "/w" } }));
    const result = await pending;

    expect(sentAs(exec, "shellStreamArgs")).toMatchObject({
      command: "make test",
      workingDirectory: "/w",
      timeout: 30000,
      toolCallId: "call-1",
      fileOutputThresholdBytes: 40000n,
      timeoutBehavior: TimeoutBehavior.BACKGROUND,
      hardTimeout: 86400000,
      closeStdin: true,
      description: "Runs the tests",
      conversationId: "conv-1",
    });
    expect(shellDeltas(emitted)).toEqual(["stdout:one\n", "stderr:warn\n", "stdout:two\n"]);
    expect(result).toMatchObject({ isError: false, content: "Exit code: 0\n\none\nwarn\ntwo\n" });
    const card = cardOf(result.card, "shellToolCall");
    expect(card.description).toBe("Runs the tests");
    expect(card.result?.result).toMatchObject({ case: "success", value: { exitCode: 0, stdout: "one\ntwo\n", stderr: "warn\n" } });
  });

  it("reports a non-zero exit as a failure with the exit code", async () => {
    const { client, ctx } = setup();
    client.script(shellEvent({ case: "exit", value: { code: 2 } }));
    const result = await run("Shell", { command: "false", block_until_ms: 5000 }, ctx);
    expect(sentAs(client.execs[0], "shellStreamArgs").timeout).toBe(5000);
    expect(result).toMatchObject({ isError: true, content: "Exit code: 2\n\n(no output)" });
    expect(cardOf(result.card, "shellToolCall").result?.result).toMatchObject({ case: "failure", value: { exitCode: 2 } });
  });

  it("reports a backgrounded command as running, with its shell id and pid", async () => {
    const { client, ctx } = setup();
    client.script(shellEvent({ case: "backgrounded", value: { shellId: 7, pid: 4242 } }));
    const result = await run("Shell", { command: "npm run dev", block_until_ms: 0 }, ctx);
    expect(result).toMatchObject({ isError: false, content: "shell running in background shell_id=7 pid=4242" });
    expect(cardOf(result.card, "shellToolCall").result).toMatchObject({
      isBackground: true,
      result: { case: "success", value: { shellId: 7 } },
    });
  });

  it("turns a user rejection into a tool error", async () => {
    const { client, ctx } = setup();
    client.script(shellEvent({ case: "rejected", value: { reason: "too risky" } }));
    const result = await run("Shell", { command: "rm -rf /" }, ctx);
    expect(result).toMatchObject({ isError: true, content: "The user rejected the command. Reason: too risky" });
  });

  it("treats a stream_close after some output but before exit as a tool error", async () => {
    const { client, ctx } = setup();
    client.script(shellEvent({ case: "stdout", value: { data: "partial" } }), STREAM_CLOSE);
    const result = await run("Shell", { command: "sleep 1" }, ctx);
    expect(result).toMatchObject({ isError: true, content: EXEC_CLOSED_EARLY });
    expect(cardOf(result.card, "shellToolCall").result?.result.case).toBe("spawnError");
  });
});

// ---- search tools

describe("Glob and Grep", () => {
  it("Glob sends grep_args with an empty pattern in files_with_matches mode and lists the files", async () => {
    const { client, ctx } = setup();
    client.script(
      reply({
        case: "grepResult",
        value: {
          result: {
            case: "success",
            value: { workspaceResults: { "/w": { result: { case: "files", value: { files: ["src/a.ts", "src/b.ts"], totalFiles: 2 } } } } },
          },
        },
      }),
    );
    const result = await run("Glob", { target_directory: "/w/src", glob_pattern: "*.ts" }, ctx);

    expect(sentAs(client.execs[0], "grepArgs")).toMatchObject({
      pattern: "",
      path: "/w/src",
      glob: "*.ts",
      outputMode: "files_with_matches",
      toolCallId: "call-1",
    });
    expect(result).toMatchObject({ isError: false, content: "src/a.ts\nsrc/b.ts\n\n(2 files)" });
    const card = cardOf(result.card, "globToolCall");
    expect(card.args).toMatchObject({ targetDirectory: "/w/src", globPattern: "*.ts" });
    expect(card.result?.result).toMatchObject({
      case: "success",
      value: { pattern: "*.ts", path: "/w/src", files: ["src/a.ts", "src/b.ts"], totalFiles: 2 },
    });
  });

  it("Grep maps the ripgrep-style flags and renders matches with context lines", async () => {
    const { client, ctx } = setup();
    const matches = [
      { lineNumber: 3, content: "const a = 1;", isContextLine: true },
      { lineNumber: 4, content: "foo(a);" },
    ];
    client.script(
      reply({
        case: "grepResult",
        value: {
          result: {
            case: "success",
            value: {
              workspaceResults: {
                "/w": { result: { case: "content", value: { matches: [{ file: "src/a.ts", matches }], totalMatchedLines: 1 } } },
              },
            },
          },
        },
      }),
    );
    const result = await run("Grep", { pattern: "foo\\(", path: "src", "-B": 1, "-i": true, output_mode: "content", head_limit: 20 }, ctx);
    expect(sentAs(client.execs[0], "grepArgs")).toMatchObject({
      pattern: "foo\\(",
      path: "src",
      contextBefore: 1,
      caseInsensitive: true,
      outputMode: "content",
      headLimit: 20,
    });
    expect(result.content).toBe("src/a.ts\n3-const a = 1;\n4:foo(a);\n\n(1 matching lines)");
    expect(cardOf(result.card, "grepToolCall").result?.result.case).toBe("success");
  });
});

// ---- local and interaction tools

describe("TodoWrite", () => {
  it("merges by id into the session's list without any exec", async () => {
    const { client, ctx, state } = setup({
      todos: [
        { id: "a", content: "Write the parser", status: "in_progress" },
        { id: "b", content: "Test it", status: "pending" },
      ],
      mode: AgentMode.AGENT,
    });
    const result = await run(
      "TodoWrite",
      {
        merge: true,
        todos: [
          { id: "a", status: "completed" },
          { id: "c", content: "Ship it", status: "pending" },
        ],
      },
      ctx,
    );

    expect(client.execs).toHaveLength(0);
    expect(state.todos).toEqual([
      { id: "a", content: "Write the parser", status: "completed" },
      { id: "b", content: "Test it", status: "pending" },
      { id: "c", content: "Ship it", status: "pending" },
    ]);
    expect(result.content).toContain("- [completed] Write the parser (id: a)");
    const card = cardOf(result.card, "updateTodosToolCall");
    expect(card.args?.merge).toBe(true);
    expect(card.result?.result).toMatchObject({ case: "success", value: { totalCount: 3, wasMerge: true } });
    const success = card.result?.result.case === "success" ? card.result.result.value : undefined;
    expect(success?.todos.map((t: { status: TodoStatus }) => t.status)).toEqual([
      TodoStatus.COMPLETED,
      TodoStatus.PENDING,
      TodoStatus.PENDING,
    ]);
  });

  it("replaces the list when merge is false, and refuses items without content then", async () => {
    const { ctx, state } = setup({ todos: [{ id: "old", content: "Old", status: "pending" }], mode: AgentMode.AGENT });
    await run("TodoWrite", { merge: false, todos: [{ id: "n", content: "New", status: "pending" }] }, ctx);
    expect(state.todos).toEqual([{ id: "n", content: "New", status: "pending" }]);

    const parsed = tool("TodoWrite").parse(JSON.stringify({ merge: false, todos: [{ id: "x", status: "pending" }] }));
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain("todos.0.content");
  });
});

describe("Task", () => {
  it("sends subagent_args with the resolved model and without hook contexts, and reports the subagent's answer", async () => {
    const { client, ctx } = setup();
    client.script(
      reply({
        case: "subagentResult",
        value: { result: { case: "success", value: { agentId: "agent-9", finalMessage: "Found 3 call sites." } } },
      }),
    );
    const result = await run(
      "Task",
      { description: "Find call sites", prompt: "Find every caller of foo()", subagent_type: "explore", readonly: true },
      ctx,
    );

    expect(sentAs(client.execs[0], "subagentArgs")).toMatchObject({
      toolCallId: "call-1",
      subagentType: "explore",
      modelId: "parent-model",
      prompt: "Find every caller of foo()",
      readonly: true,
    });
    expect(client.execs[0]?.options).toEqual({ toolCallId: "call-1", acceptHookAdditionalContexts: false });
    expect(result).toMatchObject({
      isError: false,
      content: "Subagent name: Find call sites\nSubagent ID: agent-9\n\nFound 3 call sites.",
    });
    const card = cardOf(result.card, "taskToolCall");
    expect(card.args?.subagentType?.type.case).toBe("explore");
    expect(card.result?.result).toMatchObject({ case: "success", value: { agentId: "agent-9" } });
  });

  it("keeps a read-only custom subagent read-only when the model asks for readonly false", async () => {
    const { client, ctx } = setup();
    client.script(
      reply({ case: "subagentResult", value: { result: { case: "success", value: { agentId: "agent-r", finalMessage: "ok" } } } }),
    );
    const task = taskToolFor([create(CustomSubagentSchema, { name: "reviewer", permissionMode: CustomSubagentPermissionMode.READONLY })]);
    const parsed = task.parse(JSON.stringify({ description: "Review", prompt: "Review it", subagent_type: "reviewer", readonly: false }));
    if (!parsed.ok) throw new Error(parsed.error);
    await task.run(parsed.args, ctx);
    expect(sentAs(client.execs[0], "subagentArgs")).toMatchObject({ subagentType: "reviewer", readonly: true });
  });
});

describe("interaction tools", () => {
  it("SwitchMode asks the user and changes the session mode once approved", async () => {
    const { client, ctx, state } = setup();
    client.answer({ case: "switchModeRequestResponse", value: { result: { case: "approved", value: {} } } });
    const result = await run("SwitchMode", { target_mode_id: "plan", explanation: "Large refactor" }, ctx);
    expect(client.queries[0]).toMatchObject({
      case: "switchModeRequestQuery",
      value: { args: { targetModeId: "plan", explanation: "Large refactor", toolCallId: "call-1" } },
    });
    expect(state.mode).toBe(AgentMode.PLAN);
    expect(result.isError).toBe(false);
    expect(cardOf(result.card, "switchModeToolCall").result?.result).toMatchObject({
      case: "success",
      value: { fromModeId: "agent", toModeId: "plan" },
    });
  });

  it("SwitchMode tells the model when the user declines and leaves the mode alone", async () => {
    const { client, ctx, state } = setup();
    client.answer({ case: "switchModeRequestResponse", value: { result: { case: "rejected", value: { reason: "keep going" } } } });
    const result = await run("SwitchMode", { target_mode_id: "plan" }, ctx);
    expect(state.mode).toBe(AgentMode.AGENT);
    expect(result.content).toContain("The user declined to switch to plan mode: keep going");
  });

  it("McpAuth asks the user to sign in to the server and tells the model to call its tools again once approved", async () => {
    const { client, ctx } = setup();
    client.answer({ case: "mcpAuthRequestResponse", value: { result: { case: "approved", value: {} } } });
    const result = await run("McpAuth", { server: "linear" }, ctx);
    expect(client.queries[0]).toMatchObject({
      case: "mcpAuthRequestQuery",
      value: { args: { serverIdentifier: "linear", toolCallId: "call-1" } },
    });
    expect(result).toMatchObject({ isError: false, content: "The user signed in to the MCP server linear. Call its tools again." });
    expect(cardOf(result.card, "mcpAuthToolCall").result?.result).toMatchObject({ case: "success", value: { serverIdentifier: "linear" } });
  });

  it("McpAuth reports a declined sign-in as a tool error with the user's reason and the rejected card", async () => {
    const { client, ctx } = setup();
    client.answer({ case: "mcpAuthRequestResponse", value: { result: { case: "rejected", value: { reason: "not now" } } } });
    const result = await run("McpAuth", { server: "linear" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("The user declined to sign in to the MCP server linear: not now");
    expect(cardOf(result.card, "mcpAuthToolCall").result?.result).toMatchObject({ case: "rejected", value: { reason: "not now" } });
  });

  it("AskQuestion renders the chosen option labels and free text", async () => {
    const { client, ctx } = setup();
    client.answer({
      case: "askQuestionInteractionResponse",
      value: {
        result: {
          result: { case: "success", value: { answers: [{ questionId: "db", selectedOptionIds: ["pg"], freeformText: "v16 please" }] } },
        },
      },
    });
    const questions = [
      {
        id: "db",
        prompt: "Which database?",
        options: [
          { id: "pg", label: "PostgreSQL" },
          { id: "my", label: "MySQL" },
        ],
      },
    ];
    const result = await run("AskQuestion", { questions }, ctx);
    expect(client.queries[0]?.case).toBe("askQuestionInteractionQuery");
    expect(result).toMatchObject({ isError: false, content: 'The user answered:\n- Which database?: PostgreSQL, "v16 please"' });
  });

  it("WebFetch fetches through the client only after the user approves", async () => {
    const { client, ctx } = setup();
    client.answer({ case: "webFetchRequestResponse", value: { result: { case: "approved", value: {} } } });
    client.script(
      reply({
        case: "fetchResult",
        value: { result: { case: "success", value: { url: "https://example.com", content: "# Hi", statusCode: 200 } } },
      }),
    );
    const result = await run("WebFetch", { url: "https://example.com" }, ctx);
    expect(client.log).toEqual(["exec:fetchArgs"]);
    expect(sentAs(client.execs[0], "fetchArgs")).toMatchObject({ url: "https://example.com", toolCallId: "call-1" });
    expect(result).toMatchObject({ isError: false, content: "Fetched https://example.com (status 200)\n\n# Hi" });
  });

  it("WebFetch sends nothing when the user declines", async () => {
    const { client, ctx } = setup();
    client.answer({ case: "webFetchRequestResponse", value: { result: { case: "rejected", value: { reason: "" } } } });
    const result = await run("WebFetch", { url: "https://example.com" }, ctx);
    expect(client.execs).toHaveLength(0);
    expect(result.content).toBe("The user declined fetching https://example.com.");
  });
});

describe("MCP tools", () => {
  it("CallMcpTool sends the arguments as protobuf Values and returns the text content", async () => {
    const { client, ctx } = setup();
    client.script(
      reply({
        case: "mcpResult",
        value: { result: { case: "success", value: { content: [{ content: { case: "text", value: { text: "42 issues" } } }] } } },
      }),
    );
    const result = await run(
      "CallMcpTool",
      { server: "github", toolName: "search_issues", arguments: { q: "bug", limit: 5, open: true, labels: ["a"] } },
      ctx,
    );

    const sent = sentAs(client.execs[0], "mcpArgs");
    expect(sent).toMatchObject({
      name: "search_issues",
      toolName: "search_issues",
      providerIdentifier: "github",
      serverIdentifier: "github",
      toolCallId: "call-1",
    });
    expect(sent.args.q?.kind).toEqual({ case: "stringValue", value: "bug" });
    expect(sent.args.limit?.kind).toEqual({ case: "numberValue", value: 5 });
    expect(sent.args.open?.kind).toEqual({ case: "boolValue", value: true });
    expect(sent.args.labels?.kind.case).toBe("listValue");
    expect(result).toMatchObject({ isError: false, content: "42 issues" });
  });

  it("CallMcpTool reports an MCP-level error result as a tool error", async () => {
    const { client, ctx } = setup();
    client.script(
      reply({
        case: "mcpResult",
        value: {
          result: { case: "success", value: { isError: true, content: [{ content: { case: "text", value: { text: "bad token" } } }] } },
        },
      }),
    );
    const result = await run("CallMcpTool", { server: "github", toolName: "whoami" }, ctx);
    expect(result).toMatchObject({ isError: true, content: "bad token" });
  });

  it("CallMcpTool naming a server or tool the client does not have is a tool error listing what it has", async () => {
    const noServer = setup();
    noServer.client.script(
      reply({
        case: "mcpResult",
        value: { result: { case: "serverNotFound", value: { name: "gitlab", availableServers: ["github", "linear"] } } },
      }),
    );
    const server = await run("CallMcpTool", { server: "gitlab", toolName: "whoami" }, noServer.ctx);
    expect(server).toMatchObject({ isError: true, content: "No MCP server named gitlab. Available servers: github, linear." });
    const noTool = setup();
    noTool.client.script(
      reply({
        case: "mcpResult",
        value: { result: { case: "toolNotFound", value: { name: "whoami", availableTools: ["search_issues"] } } },
      }),
    );
    const tool = await run("CallMcpTool", { server: "github", toolName: "whoami" }, noTool.ctx);
    expect(tool).toMatchObject({ isError: true, content: "Server github has no tool named whoami. Available tools: search_issues." });
  });
});
