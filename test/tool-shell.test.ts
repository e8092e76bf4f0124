// Shell output streamed to the card while the command runs.
import { describe, expect, it } from "vitest";
import { chatText, chatToolCalls, createScenario } from "./support/fake-provider.ts";
import { startTurn } from "./support/cursor-client.ts";
import { shellEvent, streamClose } from "./support/exec-replies.ts";

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
});
