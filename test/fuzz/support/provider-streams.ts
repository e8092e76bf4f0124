// Valid provider streams generated from one logical answer (text and thinking
// pieces, tool calls, usage), written as each provider's SSE wire format, and
// what any reading of a stream must say: the answer itself, and well-formed
// ModelEvents (one start first, one done last, tool events inside their call).
import fc from "fast-check";
import type { FinishReason, ModelEvent } from "../../../src/provider/types.ts";

export interface Answer {
  /** Text and thinking in the order the model produced them, each as its deltas. */
  pieces: { kind: "text" | "thinking"; deltas: string[] }[];
  tools: { callId: string; name: string; args: string[] }[];
  usage: { input: number; output: number };
}

/** How the SSE text is laid out: line endings, comment lines, `data:` with or without its space. */
export interface Layout {
  crlf: boolean;
  comments: boolean;
  space: boolean;
}

const delta = fc.string({ unit: "binary", maxLength: 16 });
const deltas = fc.array(delta, { minLength: 1, maxLength: 4 });

export const answerArbitrary: fc.Arbitrary<Answer> = fc.record({
  pieces: fc.array(fc.record({ kind: fc.constantFrom("text" as const, "thinking" as const), deltas }), { maxLength: 5 }),
  tools: fc
    .array(fc.record({ name: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,15}$/), args: fc.array(delta, { maxLength: 4 }) }), {
      maxLength: 3,
    })
    .map((tools) => tools.map((tool, i) => ({ ...tool, callId: `call_${i}` }))),
  usage: fc.record({ input: fc.nat({ max: 1_000_000 }), output: fc.nat({ max: 100_000 }) }),
});

export const layoutArbitrary: fc.Arbitrary<Layout> = fc.record({ crlf: fc.boolean(), comments: fc.boolean(), space: fc.boolean() });

interface WireEvent {
  event?: string;
  data: string;
}

export function sseText(events: WireEvent[], layout: Layout): string {
  const nl = layout.crlf ? "\r\n" : "\n";
  const data = layout.space ? "data: " : "data:";
  return events
    .map((e) => `${layout.comments ? `: keep-alive${nl}` : ""}${e.event ? `event: ${e.event}${nl}` : ""}${data}${e.data}${nl}${nl}`)
    .join("");
}

function finishOf(answer: Answer): FinishReason {
  return answer.tools.length > 0 ? "tool_use" : "stop";
}

export function chatWire(answer: Answer): WireEvent[] {
  const id = "chatcmpl-fuzz";
  const chunk = (delta: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id, object: "chat.completion.chunk", choices: [{ index: 0, delta, ...extra }] });
  const out = [chunk({ role: "assistant", content: "" })];
  for (const piece of answer.pieces) {
    for (const d of piece.deltas) out.push(chunk(piece.kind === "text" ? { content: d } : { reasoning_content: d }));
  }
  for (const [index, tool] of answer.tools.entries()) {
    out.push(chunk({ tool_calls: [{ index, id: tool.callId, type: "function", function: { name: tool.name, arguments: "" } }] }));
    for (const args of tool.args) out.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
  }
  out.push(chunk({}, { finish_reason: answer.tools.length > 0 ? "tool_calls" : "stop" }));
  out.push(JSON.stringify({ id, choices: [], usage: { prompt_tokens: answer.usage.input, completion_tokens: answer.usage.output } }));
  return [...out.map((data) => ({ data })), { data: "[DONE]" }];
}

export function anthropicWire(answer: Answer): WireEvent[] {
  const out: Record<string, unknown>[] = [
    {
      type: "message_start",
      message: {
        id: "msg_fuzz",
        type: "message",
        role: "assistant",
        content: [],
        usage: { input_tokens: answer.usage.input, output_tokens: 0 },
      },
    },
    { type: "ping" },
  ];
  let index = 0;
  for (const piece of answer.pieces) {
    const text = piece.kind === "text";
    out.push({
      type: "content_block_start",
      index,
      content_block: text ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" },
    });
    for (const d of piece.deltas) {
      out.push({
        type: "content_block_delta",
        index,
        delta: text ? { type: "text_delta", text: d } : { type: "thinking_delta", thinking: d },
      });
    }
    if (!text) out.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: `sig${index}` } });
    out.push({ type: "content_block_stop", index });
    index++;
  }
  for (const tool of answer.tools) {
    out.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: tool.callId, name: tool.name, input: {} } });
    for (const args of tool.args) out.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: args } });
    out.push({ type: "content_block_stop", index });
    index++;
  }
  out.push({
    type: "message_delta",
    delta: { stop_reason: answer.tools.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: answer.usage.output },
  });
  out.push({ type: "message_stop" });
  return out.map((e) => ({ event: e.type as string, data: JSON.stringify(e) }));
}

export function responsesWire(answer: Answer): WireEvent[] {
  const out: Record<string, unknown>[] = [{ type: "response.created", response: { id: "resp_fuzz", status: "in_progress", output: [] } }];
  let output_index = 0;
  for (const piece of answer.pieces) {
    const whole = piece.deltas.join("");
    if (piece.kind === "thinking") {
      const item_id = `rs_${output_index}`;
      out.push({ type: "response.output_item.added", output_index, item: { type: "reasoning", id: item_id, summary: [] } });
      for (const d of piece.deltas) {
        out.push({ type: "response.reasoning_summary_text.delta", item_id, output_index, summary_index: 0, delta: d });
      }
      out.push({
        type: "response.output_item.done",
        output_index,
        item: { type: "reasoning", id: item_id, summary: [{ type: "summary_text", text: whole }] },
      });
    } else {
      const item_id = `msg_${output_index}`;
      out.push({
        type: "response.output_item.added",
        output_index,
        item: { type: "message", id: item_id, role: "assistant", content: [] },
      });
      for (const d of piece.deltas) out.push({ type: "response.output_text.delta", item_id, output_index, content_index: 0, delta: d });
      out.push({ type: "response.output_text.done", item_id, output_index, content_index: 0, text: whole });
      out.push({
        type: "response.output_item.done",
        output_index,
        item: { type: "message", id: item_id, role: "assistant", content: [{ type: "output_text", text: whole }] },
      });
    }
    output_index++;
  }
  for (const tool of answer.tools) {
    const item_id = `fc_${output_index}`;
    const item = { type: "function_call", id: item_id, call_id: tool.callId, name: tool.name };
    out.push({ type: "response.output_item.added", output_index, item: { ...item, arguments: "" } });
    for (const args of tool.args) out.push({ type: "response.function_call_arguments.delta", item_id, output_index, delta: args });
    out.push({ type: "response.function_call_arguments.done", item_id, output_index, arguments: tool.args.join("") });
    out.push({ type: "response.output_item.done", output_index, item: { ...item, arguments: tool.args.join("") } });
    output_index++;
  }
  out.push({
    type: "response.completed",
    response: {
      id: "resp_fuzz",
      status: "completed",
      output: [],
      usage: { input_tokens: answer.usage.input, output_tokens: answer.usage.output },
    },
  });
  return out.map((e) => ({ event: e.type as string, data: JSON.stringify(e) }));
}

/** What a list of ModelEvents says, put together. */
export interface Said {
  text: string;
  thinking: string;
  tools: { callId: string; name: string; args: string }[];
  finish?: FinishReason;
  usage?: { input: number; output: number };
}

export function said(events: ModelEvent[]): Said {
  const out: Said = { text: "", thinking: "", tools: [] };
  const tools = new Map<number, Said["tools"][number]>();
  for (const e of events) {
    if (e.kind === "text_delta") out.text += e.text;
    else if (e.kind === "thinking_delta") out.thinking += e.text;
    else if (e.kind === "tool_call_start") {
      const tool = { callId: e.callId, name: e.name, args: "" };
      tools.set(e.index, tool);
      out.tools.push(tool);
    } else if (e.kind === "tool_call_delta") tools.get(e.index)!.args += e.delta;
    else if (e.kind === "usage") out.usage = { input: e.usage.inputTokens, output: e.usage.outputTokens };
    else if (e.kind === "done") out.finish = e.finish;
  }
  return out;
}

/** The answer as a stream of it must say it; `thinkingSeparator` joins thinking pieces (Responses keeps them apart). */
export function expectedSaid(answer: Answer, thinkingSeparator = ""): Said {
  const join = (kind: "text" | "thinking", separator: string) =>
    answer.pieces
      .filter((p) => p.kind === kind)
      .map((p) => p.deltas.join(""))
      .filter(Boolean)
      .join(separator);
  return {
    text: join("text", ""),
    thinking: join("thinking", thinkingSeparator),
    tools: answer.tools.map((t) => ({ callId: t.callId, name: t.name, args: t.args.join("") })),
    finish: finishOf(answer),
    usage: answer.usage,
  };
}

/**
 * Problems with the shape of an event list, whatever the input was: one start,
 * first; at most one done, last; tool deltas and ends only inside a started call.
 * Empty when well formed. (A repeated thinking_end is allowed: src/cursor/agent/model-call.ts
 * takes it as idempotent, and a garbled Anthropic stream that leaves a thinking block
 * open while another runs does close each.)
 */
export function shapeProblems(events: ModelEvent[]): string[] {
  const problems: string[] = [];
  const open = new Set<number>();
  const started = new Set<number>();
  for (const [i, e] of events.entries()) {
    if (e.kind === "start" && i !== 0) problems.push(`start at ${i}`);
    if (i === 0 && e.kind !== "start") problems.push(`first event is ${e.kind}`);
    if (e.kind === "done" && i !== events.length - 1) problems.push(`done at ${i} of ${events.length}`);
    if (e.kind === "tool_call_start") {
      if (started.has(e.index)) problems.push(`tool ${e.index} started twice`);
      started.add(e.index);
      open.add(e.index);
    }
    if ((e.kind === "tool_call_delta" || e.kind === "tool_call_end") && !open.has(e.index)) {
      problems.push(`${e.kind} at ${i} for tool ${e.index}, which is not open`);
    }
    if (e.kind === "tool_call_end") open.delete(e.index);
  }
  return problems;
}
