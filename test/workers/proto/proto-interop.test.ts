// Our .proto files (src/proto) are a hand-picked subset of the Cursor wire schemas kept in
// ../shared/reference. These tests prove the subset faithful: what we encode decodes with the
// reference schema to the same values (and the other way round), and every message, field and
// enum value we declare exists in the reference with the same name, number and type.
import {
  create,
  createFileRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescEnum,
  type DescField,
  type DescFile,
  type DescMessage,
  type FileRegistry,
  type JsonValue,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  AgentClientMessageSchema,
  AgentMode,
  AgentServerMessageSchema,
  ConversationStateStructureSchema,
  ThinkingStyle,
  file_agent_v1_agent,
} from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import {
  AvailableModelsResponseSchema,
  BidiAppendRequestSchema,
  ErrorDetailsSchema,
  ErrorDetails_Error,
  GetServerConfigResponseSchema,
  Http2Config,
  file_aiserver_v1_aiserver,
} from "../../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { file_aiserver_v1_unlisted } from "../../../src/proto/gen/aiserver/v1/unlisted_pb.ts";

/** Services the client calls that the reference schema does not list (src/proto/aiserver/v1/unlisted.proto). */
const ABSENT_FROM_REFERENCE = new Set([
  "aiserver.v1.IsConnectedRequest",
  "aiserver.v1.IsConnectedResponse",
  "aiserver.v1.GetEmailRequest",
  "aiserver.v1.GetEmailResponse",
  "aiserver.v1.GetEmailResponse.SignUpType",
  "aiserver.v1.GetUserMetaRequest",
  "aiserver.v1.GetUserMetaResponse",
]);

const OUR_FILES: DescFile[] = [file_agent_v1_agent, file_aiserver_v1_aiserver, file_aiserver_v1_unlisted];

let reference: FileRegistry;
/** Empty when no reference schemas were found (test/global-setup.ts says so once); every suite here is then skipped. */
const referenceSet = inject("referenceDescriptorSet");
const withoutReference = referenceSet === "";

beforeAll(() => {
  if (!withoutReference) reference = createFileRegistry(fromBinary(FileDescriptorSetSchema, base64Decode(referenceSet)));
});

function referenceMessage(typeName: string): DescMessage {
  const desc = reference.getMessage(typeName);
  if (!desc) throw new Error(`reference has no message ${typeName}`);
  return desc;
}

/** Encode with our schema, decode with the reference; returns both JSON views. */
function oursThroughReference<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array) {
  const refSchema = referenceMessage(schema.typeName);
  const decoded = fromBinary(refSchema, bytes);
  return {
    ours: toJson(schema, fromBinary(schema, bytes)),
    reference: toJson(refSchema, decoded),
  };
}

function expectSameValues<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array) {
  const { ours, reference: ref } = oursThroughReference(schema, bytes);
  expect(ref).toEqual(ours);
  return ref;
}

const enc = new TextEncoder();

describe.skipIf(withoutReference)("agent.v1 messages the project encodes", () => {
  it("a server message carrying a text delta decodes with the reference schema to the same values", () => {
    const msg = create(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: { message: { case: "textDelta", value: { text: "Hello, wörld ✓" } } },
      },
    });
    const json = expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, msg));
    expect(json).toEqual({ interactionUpdate: { textDelta: { text: "Hello, wörld ✓" } } });
  });

  it("a completed read tool call with its result and timestamps decodes with the reference schema to the same values", () => {
    const msg = create(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: {
          message: {
            case: "toolCallCompleted",
            value: {
              callId: "call_1",
              modelCallId: "model_call_1",
              toolCall: {
                toolCallId: "call_1",
                startedAtMs: 1_700_000_000_000n,
                completedAtMs: 1_700_000_000_250n,
                tool: {
                  case: "readToolCall",
                  value: {
                    args: { path: "/repo/src/index.ts", offset: 10, limit: 50, includeLineNumbers: true },
                    result: {
                      result: {
                        case: "success",
                        value: {
                          path: "/repo/src/index.ts",
                          output: { case: "content", value: "export {};\n" },
                          totalLines: 120,
                          fileSize: 4096,
                          exceededLimit: false,
                          readRange: { startLine: 10, endLine: 60 },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    });
    const json = expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, msg));
    expect(json).toMatchObject({
      interactionUpdate: {
        toolCallCompleted: {
          toolCall: {
            startedAtMs: "1700000000000",
            completedAtMs: "1700000000250",
            readToolCall: { result: { success: { content: "export {};\n", totalLines: 120 } } },
          },
        },
      },
    });
  });

  it("a conversation checkpoint with token details decodes with the reference schema to the same values", () => {
    const msg = create(AgentServerMessageSchema, {
      message: {
        case: "conversationCheckpointUpdate",
        value: {
          rootPromptMessagesJson: [enc.encode('{"role":"system","content":"x"}')],
          turns: [new Uint8Array([1, 2, 3, 4])],
          pendingToolCalls: ["call_9"],
          tokenDetails: {
            usedTokens: 1234,
            maxTokens: 200_000,
            breakdown: {
              totalUsedTokens: 1234,
              maxTokens: 200_000,
              categories: [{ id: "system", label: "System prompt", estimatedTokens: 900, characterCount: 3600 }],
            },
          },
          mode: AgentMode.AGENT,
          summaryArchives: [new Uint8Array([9])],
          selfSummaryCount: 1,
          readPaths: ["/repo/README.md"],
          fileStates: { "/repo/a.ts": new Uint8Array([7, 7]) },
          subagentThreads: { call_2: "thread-2" },
          turnTimings: [{ durationMs: 1500n, timestampMs: 1_700_000_001_000n }],
          conversationStartedTimestampMs: 1_700_000_000_000n,
          conversationStartedTimeZone: "Europe/Berlin",
        },
      },
    });
    const json = expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, msg));
    expect(json).toMatchObject({
      conversationCheckpointUpdate: { tokenDetails: { usedTokens: 1234, maxTokens: 200000 }, mode: "AGENT_MODE_AGENT" },
    });
  });

  it("exec requests for a streamed shell command and a file read decode with the reference schema to the same values", () => {
    const shell = create(AgentServerMessageSchema, {
      message: {
        case: "execServerMessage",
        value: {
          id: 3,
          execId: "exec-3",
          message: {
            case: "shellStreamArgs",
            value: {
              command: "npm test",
              workingDirectory: "/repo",
              timeout: 30_000,
              toolCallId: "call_3",
              simpleCommands: ["npm test"],
              isBackground: false,
              description: "Run the tests",
            },
          },
        },
      },
    });
    expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, shell));

    const read = create(AgentServerMessageSchema, {
      message: {
        case: "execServerMessage",
        value: {
          id: 4,
          execId: "exec-4",
          message: { case: "readArgs", value: { path: "/repo/package.json", toolCallId: "call_4", offset: 1, limit: 200 } },
        },
      },
    });
    const json = expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, read));
    expect(json).toEqual({
      execServerMessage: { id: 4, execId: "exec-4", readArgs: { path: "/repo/package.json", toolCallId: "call_4", offset: 1, limit: 200 } },
    });
  });

  it("a blob store write request decodes with the reference schema to the same values", () => {
    const msg = create(AgentServerMessageSchema, {
      message: {
        case: "kvServerMessage",
        value: {
          id: 11,
          message: { case: "setBlobArgs", value: { blobId: new Uint8Array([0xde, 0xad]), blobData: enc.encode("blob") } },
        },
      },
    });
    expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, msg));
  });

  it("a turn-ended update with token counts decodes with the reference schema to the same values", () => {
    const msg = create(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: {
          message: {
            case: "turnEnded",
            value: { inputTokens: 1000n, outputTokens: 200n, cacheReadTokens: 0n, reasoningTokens: 50n },
          },
        },
      },
    });
    const json = expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, msg));
    // Explicit presence survives: a zero cache_read_tokens is still sent.
    expect(json).toEqual({
      interactionUpdate: { turnEnded: { inputTokens: "1000", outputTokens: "200", cacheReadTokens: "0", reasoningTokens: "50" } },
    });
  });

  it("a delivered context injection state decodes with the reference schema to the same values", () => {
    const msg = create(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: {
          message: {
            case: "contextInjectionState",
            value: {
              injectionId: "inj-1",
              state: { state: { case: "delivered", value: { step: 2, deliveryBatchId: "batch-1", deliveredAtMs: 1_700_000_000_500n } } },
            },
          },
        },
      },
    });
    expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, msg));
  });

  it("a thinking delta with a style enum decodes with the reference schema to the same values", () => {
    const msg = create(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: { message: { case: "thinkingDelta", value: { text: "hmm", thinkingStyle: ThinkingStyle.DEFAULT } } },
      },
    });
    expectSameValues(AgentServerMessageSchema, toBinary(AgentServerMessageSchema, msg));
  });
});

describe.skipIf(withoutReference)("agent.v1 messages the client sends", () => {
  it("a run request built with the reference schema decodes with ours to the same values", () => {
    const refSchema = referenceMessage("agent.v1.AgentClientMessage");
    const json: JsonValue = {
      runRequest: {
        conversationId: "conv-1",
        requestedModel: {
          modelId: "claude-sonnet",
          maxMode: false,
          parameters: [
            { id: "thinking", value: "true" },
            { id: "effort", value: "high" },
          ],
        },
        modelDetails: { modelId: "claude-sonnet", displayName: "Claude Sonnet" },
        action: {
          userMessageAction: {
            userMessage: {
              text: "Fix the failing test",
              messageId: "msg-1",
              mode: "AGENT_MODE_AGENT",
              richText: "<p>Fix the failing test</p>",
              conversationStateBlobId: "AQID",
            },
            requestContext: {
              env: { osVersion: "linux 6.8", workspacePaths: ["/repo"], shell: "bash", timeZone: "UTC" },
              rules: [{ fullPath: "/repo/.cursor/rules/a.mdc", content: "Be brief." }],
              webSearchEnabled: true,
            },
          },
        },
        conversationState: {
          turns: ["CgMKAQE="],
          tokenDetails: { usedTokens: 10, maxTokens: 100 },
          mode: "AGENT_MODE_ASK",
        },
        mcpTools: {
          mcpTools: [
            {
              name: "search",
              description: "Search docs",
              providerIdentifier: "docs",
              toolName: "search",
              inputSchema: { type: "object", properties: { q: { type: "string" } } },
            },
          ],
        },
        preFetchedBlobs: [{ id: "AAE=", value: "aGVsbG8=" }],
        subagentModelOverrides: [{ subagentType: "explore", inherit: true }],
        runId: "run-1",
      },
    };
    const bytes = toBinary(refSchema, fromJson(refSchema, json));
    const ours = fromBinary(AgentClientMessageSchema, bytes);
    expect(toJson(AgentClientMessageSchema, ours)).toEqual(toJson(refSchema, fromBinary(refSchema, bytes)));

    expect(ours.message.case).toBe("runRequest");
    if (ours.message.case !== "runRequest") return;
    const run = ours.message.value;
    expect(run.requestedModel?.parameters.map((p) => [p.id, p.value])).toEqual([
      ["thinking", "true"],
      ["effort", "high"],
    ]);
    expect(run.action?.action.case).toBe("userMessageAction");
    expect(run.conversationState?.mode).toBe(AgentMode.ASK);
    expect(run.preFetchedBlobs[0]?.value).toEqual(enc.encode("hello"));
  });

  it("checkpoint fields the project does not model survive a round trip through our schema", () => {
    const refSchema = referenceMessage("agent.v1.ConversationStateStructure");
    const original = fromJson(refSchema, {
      turns: ["AQI="],
      goalState: {},
      fileStatesV2: { "/repo/a.ts": {} },
      trackedGitRepoBranches: [{}],
    });
    const originalBytes = toBinary(refSchema, original);
    const throughOurs = toBinary(ConversationStateStructureSchema, fromBinary(ConversationStateStructureSchema, originalBytes));
    expect(toJson(refSchema, fromBinary(refSchema, throughOurs))).toEqual(toJson(refSchema, original));
  });
});

describe.skipIf(withoutReference)("aiserver.v1 messages", () => {
  it("a bidi append request decodes with the reference schema to the same values", () => {
    const msg = create(BidiAppendRequestSchema, {
      data: "0a0b",
      requestId: { requestId: "req-1" },
      appendSeqno: 7n,
      dataBinary: new Uint8Array([0x0a, 0x0b]),
    });
    const json = expectSameValues(BidiAppendRequestSchema, toBinary(BidiAppendRequestSchema, msg));
    expect(json).toEqual({ data: "0a0b", requestId: { requestId: "req-1" }, appendSeqno: "7", dataBinary: "Cgs=" });
  });

  it("error details for a provider error decode with the reference schema to the same values", () => {
    const msg = create(ErrorDetailsSchema, {
      error: ErrorDetails_Error.PROVIDER_ERROR,
      details: {
        title: "Provider error",
        detail: "The model provider returned 529 (overloaded).",
        isRetryable: true,
        showRequestId: true,
        shouldShowImmediateError: true,
        additionalInfo: { provider: "anthropic" },
      },
      isExpected: true,
    });
    const json = expectSameValues(ErrorDetailsSchema, toBinary(ErrorDetailsSchema, msg));
    expect(json).toMatchObject({ error: "ERROR_PROVIDER_ERROR" });
  });

  it("a server config response decodes with the reference schema to the same values", () => {
    const msg = create(GetServerConfigResponseSchema, {
      configVersion: "byok-edge-1",
      http2Config: Http2Config.FORCE_ALL_DISABLED,
      agentUrlConfig: { agentUrl: "https://edge.example.com", agentnUrl: "https://edge.example.com" },
      useNlbForNal: false,
      cliSandboxDefaultEnabled: false,
      chatConfig: { fullContextTokenLimit: 200_000, maxMcpTools: 40 },
    });
    const json = expectSameValues(GetServerConfigResponseSchema, toBinary(GetServerConfigResponseSchema, msg));
    expect(json).toMatchObject({ http2Config: "HTTP2_CONFIG_FORCE_ALL_DISABLED", cliSandboxDefaultEnabled: false });
  });

  it("an available-models response with parameters, variants and context limits decodes with the reference schema to the same values", () => {
    const msg = create(AvailableModelsResponseSchema, {
      modelNames: ["claude-sonnet"],
      useModelParameters: true,
      models: [
        {
          name: "claude-sonnet",
          defaultOn: true,
          supportsAgent: true,
          supportsThinking: true,
          supportsImages: true,
          supportsMaxMode: true,
          supportsNonMaxMode: true,
          contextTokenLimit: 200_000,
          contextTokenLimitForMaxMode: 1_000_000,
          clientDisplayName: "Claude Sonnet",
          serverModelName: "claude-sonnet",
          tooltipData: { primaryText: "Claude Sonnet", secondaryText: "via your key", markdownContent: "**BYOK**" },
          parameterDefinitions: [
            {
              id: "thinking",
              name: "Thinking",
              parameterType: {
                booleanParameter: {
                  values: [
                    { value: "true", displayName: "On" },
                    { value: "false", displayName: "Off" },
                  ],
                },
              },
            },
            {
              id: "effort",
              name: "Effort",
              parameterType: {
                enumParameter: {
                  values: [
                    { value: "low", displayName: "Low" },
                    { value: "high", displayName: "High", increasesModelCost: true, modelPickerBadges: [{ label: "new" }] },
                  ],
                },
              },
            },
          ],
          variants: [
            {
              parameterValues: [{ id: "thinking", value: "true" }],
              displayName: "Claude Sonnet (thinking)",
              isMaxMode: false,
              isDefaultNonMaxConfig: true,
              variantStringRepresentation: "claude-sonnet-thinking",
            },
          ],
          legacySlugs: ["sonnet"],
          vendorName: "Anthropic",
          vendor: { displayName: "Anthropic" },
        },
      ],
    });
    const json = expectSameValues(AvailableModelsResponseSchema, toBinary(AvailableModelsResponseSchema, msg));
    expect(json).toMatchObject({ models: [{ contextTokenLimit: 200000, contextTokenLimitForMaxMode: 1000000 }] });
  });
});

// ---------------------------------------------------------------------------------------------
// Structural check: every descriptor we generate exists in the reference with the same shape.

function describeField(f: DescField): string {
  const oneof = f.oneof ? ` in oneof ${f.oneof.name}` : "";
  const presence = ["", "explicit", "implicit", "legacy-required"][f.presence] ?? String(f.presence);
  const head = `#${f.number} ${f.name} (${presence} presence${oneof})`;
  const element = (kind: "scalar" | "enum" | "message") =>
    kind === "scalar" ? `scalar ${f.scalar}` : kind === "enum" ? `enum ${f.enum?.typeName}` : `message ${f.message?.typeName}`;
  switch (f.fieldKind) {
    case "scalar":
    case "enum":
    case "message":
      return `${head} ${element(f.fieldKind)}`;
    case "list":
      return `${head} repeated${f.packed ? " packed" : ""} ${element(f.listKind)}`;
    case "map":
      return `${head} map<scalar ${f.mapKey}, ${element(f.mapKind)}>`;
  }
}

function* descriptorsOf(files: DescFile[]): Generator<DescMessage | DescEnum> {
  function* inMessage(m: DescMessage): Generator<DescMessage | DescEnum> {
    yield m;
    yield* m.nestedEnums;
    for (const n of m.nestedMessages) yield* inMessage(n);
  }
  for (const file of files) {
    yield* file.enums;
    for (const m of file.messages) yield* inMessage(m);
  }
}

function subsetProblems(): string[] {
  const problems: string[] = [];
  for (const desc of descriptorsOf(OUR_FILES)) {
    if (ABSENT_FROM_REFERENCE.has(desc.typeName)) {
      if (reference.get(desc.typeName)) problems.push(`${desc.typeName} is listed as absent, but the reference has it`);
      continue;
    }
    if (desc.kind === "enum") {
      const ref = reference.getEnum(desc.typeName);
      if (!ref) {
        problems.push(`enum ${desc.typeName} is not in the reference`);
        continue;
      }
      for (const v of desc.values) {
        const rv = ref.values.find((x) => x.name === v.name);
        if (!rv) problems.push(`${desc.typeName}.${v.name} is not in the reference`);
        else if (rv.number !== v.number) problems.push(`${desc.typeName}.${v.name} is ${v.number}, reference ${rv.number}`);
      }
      continue;
    }
    const ref = reference.getMessage(desc.typeName);
    if (!ref) {
      problems.push(`message ${desc.typeName} is not in the reference`);
      continue;
    }
    for (const f of desc.fields) {
      const rf = ref.fields.find((x) => x.number === f.number);
      if (!rf) {
        problems.push(`${desc.typeName} field #${f.number} ${f.name} is not in the reference`);
        continue;
      }
      const ours = describeField(f);
      const theirs = describeField(rf);
      if (ours !== theirs) problems.push(`${desc.typeName}: ours ${ours}, reference ${theirs}`);
    }
  }
  return problems;
}

describe.skipIf(withoutReference)("the project's schema subset", () => {
  it("declares only messages, fields and enum values that match the reference by name, number and type", () => {
    expect(subsetProblems()).toEqual([]);
  });

  it("covers the messages the brief requires with their exact full names", () => {
    const ours = new Set([...descriptorsOf(OUR_FILES)].map((d) => d.typeName));
    for (const name of [
      "agent.v1.AgentClientMessage",
      "agent.v1.AgentServerMessage",
      "agent.v1.RequestedModel.ModelParameterValue",
      "agent.v1.ConversationStateStructure",
      "agent.v1.ExecServerMessage",
      "agent.v1.ExecClientMessage",
      "agent.v1.InteractionUpdate",
      "agent.v1.InteractionQuery",
      "agent.v1.ToolCall",
      "agent.v1.BidiRequestId",
      "aiserver.v1.BidiAppendRequest",
      "aiserver.v1.ErrorDetails.Error",
      "aiserver.v1.AvailableModelsResponse.AvailableModel",
      "aiserver.v1.ModelParameterDefinition.EnumParameterDefinition.EnumParameterValue",
    ]) {
      expect(ours, name).toContain(name);
    }
  });

  it("lists exactly the messages that are absent from the reference", () => {
    const absent = [...descriptorsOf(OUR_FILES)].filter((d) => !reference.get(d.typeName)).map((d) => d.typeName);
    expect(new Set(absent)).toEqual(ABSENT_FROM_REFERENCE);
  });
});
