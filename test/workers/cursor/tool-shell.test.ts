// Shell output streamed to the card while the command runs.
import { describe, expect, it } from "vitest";
import type { ShellArgs } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { shellEvent, streamClose } from "../../support/exec-replies.ts";

interface ChatRequest {
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
}

const parse = (body: string) => JSON.parse(body) as ChatRequest;

describe("shell", () => {
  it("streams shell output to the card as it arrives and gives the model the exit code", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "sh-1", name: "Shell", args: ['{"command":"echo hi"}'] }]),
      chatText(["ran"]),
    ]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `shell ${scenario.marker}` },
      {
        onExec: async (exec, r) => {
          expect(exec.message.case).toBe("shellStreamArgs");
          await r.send(shellEvent(exec, { case: "start", value: {} }));
          await r.send(shellEvent(exec, { case: "stdout", value: { data: "hi\n" } }));
          await r.send(shellEvent(exec, { case: "stderr", value: { data: "warn\n" } }));
          await r.send(shellEvent(exec, { case: "exit", value: { code: 0, cwd: "/w" } }));
          await r.send(streamClose(exec));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    const deltas = reader.updates().filter((u) => u.case === "toolCallDelta");
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    const [, second] = await scenario.requests(2);
    const result = parse(second!.body).messages.at(-1)!;
    expect(result.content).toContain("hi");
    expect(result.content).toMatch(/exit code:? 0|exited with 0|exit 0/i);
  });

  it("sends the parse of the command in the Shell exec's ShellArgs, for the client's allowlist", async () => {
    const command = "cd web && npm test 2>/dev/null | tail -5";
    const scenario = await createScenario([
      chatToolCalls([{ id: "sh-2", name: "Shell", args: [JSON.stringify({ command })] }]),
      chatText(["ran"]),
    ]);
    let sent: ShellArgs | undefined;
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `shell ${scenario.marker}` },
      {
        onExec: async (exec, r) => {
          if (exec.message.case === "shellStreamArgs") sent = exec.message.value;
          await r.send(shellEvent(exec, { case: "exit", value: { code: 0, cwd: "/w" } }));
          await r.send(streamClose(exec));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(sent).toMatchObject({ command, simpleCommands: ["cd", "npm", "tail"], hasInputRedirect: false, hasOutputRedirect: true });
    expect(sent?.parsingResult).toMatchObject({
      parsingFailed: false,
      executableCommands: [
        { name: "cd", args: [{ type: "word", value: "web" }], fullText: "cd web" },
        { name: "npm", args: [{ type: "word", value: "test" }], fullText: "npm test" },
        { name: "tail", args: [{ type: "number", value: "-5" }], fullText: "tail -5" },
      ],
      hasRedirects: true,
      hasCommandSubstitution: false,
      allRedirectsAreDevNull: true,
      redirects: [{ operator: ">", destinationFds: [2], targetNodeType: "word", targetText: "/dev/null" }],
    });
  });
});
