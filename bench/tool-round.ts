// Tool round trip section of `npm run bench` (docs/benchmarks.md#tool-round-trip):
// the provider streams one Read tool call; the client answers the exec request at
// once. Two legs, each against the echo route's round trip of the same run:
//   out:  the provider finished the tool-call stream → the client has the exec request;
//   back: the client starts appending its exec result → the provider has the follow-up request.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  AgentClientMessageSchema,
  type AgentClientMessage,
  type AgentServerMessage,
  type ExecServerMessage,
} from "../src/proto/gen/agent/v1/agent_pb.ts";
import type { StreamRecord } from "./fake-stream-server.ts";
import { fmt, median, p99, ratio, table } from "./stats.ts";
import { type BenchTarget, byokTurn, echoRoundTrip, newRunId } from "./turn-client.ts";

const FOLLOW_UP = { chunks: 3, intervalMs: 5 };
const FILE_TEXT = "bench file\n";

/** A Cursor client's answer to an exec request, where the bench needs one. */
function execReply(exec: ExecServerMessage): AgentClientMessage | undefined {
  const reply = (message: MessageInitShape<typeof AgentClientMessageSchema>) => create(AgentClientMessageSchema, message);
  if (exec.message.case === "readArgs") {
    const path = exec.message.value.path;
    return reply({
      message: {
        case: "execClientMessage",
        value: {
          id: exec.id,
          message: {
            case: "readResult",
            value: {
              result: {
                case: "success",
                value: { path, output: { case: "content", value: FILE_TEXT }, totalLines: 1, fileSize: BigInt(FILE_TEXT.length) },
              },
            },
          },
        },
      },
    });
  }
  if (exec.message.case === "requestContextArgs") {
    return reply({
      message: {
        case: "execClientMessage",
        value: {
          id: exec.id,
          message: { case: "requestContextResult", value: { result: { case: "success", value: { requestContext: {} } } } },
        },
      },
    });
  }
  return undefined;
}

/** `interactionUpdate/toolCallStarted`, `kvServerMessage/setBlobArgs`, `execServerMessage/readArgs`, … */
function messageKind(message: AgentServerMessage): string {
  const inner = message.message.value as { message?: { case?: string } } | undefined;
  return `${message.message.case}/${inner?.message?.case ?? "-"}`;
}

export async function toolRoundReport(opts: BenchTarget & { runs: number }): Promise<string> {
  const { baseUrl, server, token, model } = opts;
  const out: number[] = [];
  const back: number[] = [];
  const echo: number[] = [];
  /** Per kind of server message: its first arrival after the tool-call stream ended, − that end. */
  const firstAfterEnd = new Map<string, number[]>();
  for (let r = 0; r < opts.runs; r++) {
    const id = newRunId();
    let execAt: number | undefined;
    let replySentAt: number | undefined;
    let followUp: StreamRecord | undefined;
    let toolRecord: StreamRecord | undefined;
    const seen = new Set<string>();
    const turn = await byokTurn({
      baseUrl,
      server,
      token,
      model,
      id,
      plan: { chunks: 0, intervalMs: 1, toolCall: { id: `call-${r}`, name: "Read", arguments: '{"path":"/bench.txt"}' } },
      onMessage: (message, at) => {
        const ended = toolRecord?.endedAt;
        if (ended === undefined || followUp) return; // only the out leg
        const kind = messageKind(message);
        if (seen.has(kind)) return;
        seen.add(kind);
        firstAfterEnd.set(kind, [...(firstAfterEnd.get(kind) ?? []), at - ended]);
      },
      onStart: (record) => {
        toolRecord = record;
      },
      onExec: (exec, at) => {
        if (exec.message.case === "readArgs" && execAt === undefined) {
          execAt = at;
          followUp = server.prepare(id, FOLLOW_UP); // the next model call of the same turn
        }
        return execReply(exec);
      },
      onExecSent: (at) => {
        if (followUp && replySentAt === undefined) replySentAt = at;
      },
    });
    if (execAt === undefined || !followUp || replySentAt === undefined)
      throw new Error("tool round: no Read exec request reached the client");
    if (followUp.requestAt === undefined) throw new Error("tool round: the provider never got the follow-up request");
    const missing = turn.scanner.missing(FOLLOW_UP.chunks);
    if (missing.length > 0) throw new Error(`tool round: follow-up chunks never arrived: ${missing.join(", ")}`);
    out.push(execAt - turn.record.endedAt!);
    back.push(followUp.requestAt - replySentAt);
    echo.push(await echoRoundTrip(baseUrl, token));
  }
  const row = (name: string, v: number[]) => [name, fmt(median(v)), fmt(p99(v)), fmt(median(echo)), ratio(median(v), median(echo))];
  return table(
    ["figure", "byok-edge p50", "byok-edge p99", "echo round trip p50", "ratio p50"],
    [
      row("out: provider ends the tool-call stream → client has the exec request", out),
      row("back: client sends the exec result → provider has the follow-up request", back),
      row(
        "whole round (out + back)",
        out.map((o, i) => o + back[i]!),
      ),
    ],
  ).concat(
    `\n\n${opts.runs} rounds; echo p99 ${fmt(p99(echo))}\nout leg, first server message of each kind after the tool-call stream ended (p50): ${[
      ...firstAfterEnd,
    ]
      .sort((a, b) => median(a[1]) - median(b[1]))
      .map(([kind, v]) => `${kind} +${fmt(median(v))} (${v.length}/${opts.runs})`)
      .join(", ")}`,
  );
}
