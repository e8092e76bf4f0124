// Fault suite: duplicated and reordered appends under load. Many conversations at once,
// each client sending its appends (the run_request, heartbeats, its tool result) in a
// shuffled order and with duplicates, as a client retrying over a flaky network does.
// The inbox must deliver each seqno once, in order (docs/protocol.md#bidiappend); every
// turn completes with its own answer and the shared invariants hold for every conversation.
import { describe, expect, it } from "vitest";
import type { AgentClientMessage, ExecServerMessage } from "../../../../src/proto/gen/agent/v1/agent_pb.ts";
import { appendOk, FrameReader, heartbeat, nextSeqno, runRequest } from "../../../support/cursor-client.ts";
import { readSuccess, shellEvent, streamClose } from "../../../support/exec-replies.ts";
import { chatText, chatToolCalls, createScenario } from "../../../support/fake-provider.ts";
import { checkAfterFault } from "./support/invariants.ts";
import { seededRandom } from "../../../support/seeded-random.ts";

const CONVERSATIONS = 12;
const NEXT = "the next answer";

function shuffled<T>(items: T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Sends each (seqno, message) twice, all at once, in a shuffled order. */
async function sendScrambled(requestId: string, appends: [number, AgentClientMessage][], rand: () => number): Promise<void> {
  await Promise.all(shuffled([...appends, ...appends], rand).map(([seqno, message]) => appendOk(requestId, seqno, message)));
}

/** The client's appends answering one exec: a Read's result (and the same again, re-sent), or a Shell's ordered event stream. */
function execReplies(exec: ExecServerMessage, index: number): AgentClientMessage[] {
  if (exec.message.case === "readArgs") {
    const result = readSuccess(exec, `contents of file ${index}`);
    return [heartbeat(), result, heartbeat(), result];
  }
  return [
    shellEvent(exec, { case: "start", value: {} }),
    shellEvent(exec, { case: "stdout", value: { data: `line 1 of ${index}\n` } }),
    heartbeat(),
    shellEvent(exec, { case: "stdout", value: { data: `line 2 of ${index}\n` } }),
    shellEvent(exec, { case: "stdout", value: { data: `line 3 of ${index}\n` } }),
    shellEvent(exec, { case: "exit", value: { code: 0, cwd: "/w" } }),
    streamClose(exec),
  ];
}

async function scrambledTurn(index: number, seed: number) {
  const rand = seededRandom(seed + index);
  const scenario = await createScenario([
    chatToolCalls([
      { id: `read-${index}`, name: "Read", args: [`{"path":"/file-${index}"}`] },
      { id: `sh-${index}`, name: "Shell", args: [`{"command":"print ${index}"}`] },
    ]),
    chatText([`answer ${index}`]),
    chatText([NEXT]),
  ]);
  const conversationId = crypto.randomUUID();
  const requestId = crypto.randomUUID();
  const text = `scrambled ${index} ${scenario.marker}`;
  // Each exec's replies take the next seqnos, then go out each twice, shuffled: the inbox must
  // put the Shell events back in order and drop every second copy.
  const onExec = (exec: ExecServerMessage) =>
    sendScrambled(
      requestId,
      execReplies(exec, index).map((m) => [nextSeqno(requestId), m] as [number, AgentClientMessage]),
      rand,
    );
  const opening = FrameReader.open(requestId, { onExec });
  // The run_request and two heartbeats behind it, each twice, in any order.
  await sendScrambled(
    requestId,
    [
      [0, runRequest({ conversationId, requestId, text })],
      [1, heartbeat()],
      [2, heartbeat()],
    ],
    rand,
  );
  const reader = await opening;
  const end = await reader.end(20_000);
  return { index, scenario, conversationId, reader, end, text };
}

describe("fault suite: duplicated and reordered appends under load", () => {
  const seed = 20261201;
  it(`${CONVERSATIONS} conversations at once, each sending shuffled and duplicated appends, all complete correctly (seed ${seed})`, async () => {
    const turns = await Promise.all(Array.from({ length: CONVERSATIONS }, (_, i) => scrambledTurn(i, seed)));
    for (const turn of turns) {
      expect(turn.end).toEqual({});
      expect(turn.reader.text()).toBe(`answer ${turn.index}`);
      // Each provider request saw the tool call answered once.
      const [, second] = await turn.scenario.requests(2);
      expect(second!.body.split(`contents of file ${turn.index}`)).toHaveLength(2);
    }
    await Promise.all(
      turns.map((turn) =>
        checkAfterFault({
          ...turn,
          ended: [turn.reader],
          history: [
            `user: ${turn.text}`,
            `assistant calls Read(read-${turn.index}) {"path":"/file-${turn.index}"}`,
            `assistant calls Shell(sh-${turn.index}) {"command":"print ${turn.index}"}`,
            `tool(read-${turn.index}):      1|contents of file ${turn.index}`, // Read results carry line numbers
            `tool(sh-${turn.index}): Exit code: 0\n\n${[1, 2, 3].map((n) => `line ${n} of ${turn.index}\n`).join("")}`,
            `assistant: answer ${turn.index}`,
          ],
          nextAnswer: NEXT,
        }),
      ),
    );
  }, 60_000);
});
