// Work that must wait until a unary call's reply is on its way. CompleteToolCall hands
// the tool's output to its cell only then: handed over inside the handler, the cell's
// next steps ran before the reply's on the object's event loop, and the client saw the
// cell's result first (docs/code-mode.md#tool-calls).
import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import type { UniversalServerResponse } from "@connectrpc/connect/protocol";
import { AppError } from "../../core/errors.ts";

type Register = (work: () => void) => void;

export const AFTER_REPLY = createContextKey<Register | undefined>(undefined, { description: "work to do once the reply is on its way" });

/**
 * A reply the runtime never reads still lets the work run, this long after its handler returned. The
 * runtime read every reply measured, also one whose caller had gone: this is a backstop.
 */
const HANDOVER_BACKSTOP_MS = 1_000;

/** Calls `run` once, `ms` from now, unless the returned function is called first. */
type Timer = (run: () => void, ms: number) => () => void;

const realTimer: Timer = (run, ms) => {
  const timer = setTimeout(run, ms);
  return () => clearTimeout(timer);
};

let backstopTimer = realTimer;

/** @internal Tests fire the backstop themselves instead of waiting for it; no argument puts the real timer back. */
export function setHandOverBackstop(timer: Timer = realTimer): void {
  backstopTimer = timer;
}

/**
 * Runs `work` once the call's reply is on its way; at once outside codeModeFetchHandler. Unary calls
 * only, and a streaming call throws: a stream's handler returns before its messages are written
 * (they come from its generator), so no reply would ever be out for the work to follow.
 */
export function afterReply(context: HandlerContext, work: () => void): void {
  if (context.method.methodKind !== "unary") {
    throw new AppError("internal", `afterReply is for unary calls: ${context.method.name} is ${context.method.methodKind}`);
  }
  const register = context.values.get(AFTER_REPLY);
  if (register) register(work);
  else work();
}

/**
 * The fetch Response of a unary handler's reply that runs `work` when the runtime first reads its
 * body (the whole body is in that first read) or drops it.
 */
export async function handOver(response: UniversalServerResponse, work: () => void): Promise<Response> {
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    cancelBackstop();
    work();
  };
  // Started first: a body that fails to drain still lets the work (an accepted completion) run.
  const cancelBackstop = backstopTimer(finish, HANDOVER_BACKSTOP_MS);
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body ?? []) chunks.push(chunk);
  // No high-water mark: the first pull is the runtime's first read, not the stream filling its queue.
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
        finish();
      },
      cancel: finish,
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, headers: response.header });
}
