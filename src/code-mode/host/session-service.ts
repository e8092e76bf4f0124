// CodeModeHost as the session object serves it: each call finds its session (as
// Codex does, before any other field is checked) and hands the wire request on.
// OpenSession names the session in headers only the worker sets: the object is
// reachable only through the worker, which chose the UUID and checked the caller.
import type { ServiceImpl } from "@connectrpc/connect";
import { AppError } from "../../core/errors.ts";
import type { CodeModeHost } from "../../proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { afterReply } from "./after-reply.ts";
import { limitsFromProto } from "./convert.ts";
import { sendHeadersNow } from "./early-headers.ts";
import { SUBSCRIPTION_READY_HEADER } from "./lease.ts";
import type { SessionDirectory } from "./session-directory.ts";

export const SESSION_ID_HEADER = "x-byok-code-mode-session";
export const PRINCIPAL_HEADER = "x-byok-code-mode-principal";
/** The hosted user's team, for their limits; absent for "local". */
export const TEAM_HEADER = "x-byok-code-mode-team";
/** The CPU milliseconds each cell may use, when the user's team set it. */
export const CELL_CPU_HEADER = "x-byok-code-mode-cell-cpu-ms";

export function sessionService(directory: SessionDirectory): ServiceImpl<typeof CodeModeHost> {
  return {
    async *openSession(request, context) {
      const sessionId = context.requestHeader.get(SESSION_ID_HEADER);
      const principal = context.requestHeader.get(PRINCIPAL_HEADER);
      if (!sessionId || !principal) throw new AppError("internal", "a code-mode session is opened through the worker");
      const teamId = context.requestHeader.get(TEAM_HEADER) ?? undefined;
      const cellCpuMs = Number(context.requestHeader.get(CELL_CPU_HEADER)) || undefined;
      const session = await directory.open(sessionId, principal, limitsFromProto(request), { teamId, cellCpuMs });
      yield* session.lease(context.signal);
    },
    async closeSession(request) {
      await directory.find(request.sessionId).retire();
      return {};
    },
    async *subscribeToToolCalls(request, context) {
      const ready = () => {
        context.responseHeader.set(SUBSCRIPTION_READY_HEADER, "ready");
        sendHeadersNow(context);
      };
      yield* directory.find(request.sessionId).subscribe(request, context.signal, ready);
    },
    async completeToolCall(request, context) {
      afterReply(context, directory.find(request.sessionId).completeToolCall(request));
      return {};
    },
    async acknowledgeNotification(request) {
      directory.find(request.sessionId).acknowledgeNotification(request.notificationId);
      return {};
    },
    async *execute(request, context) {
      const receivedAtMs = performance.now();
      yield* directory.find(request.sessionId).execute(request, context.signal, receivedAtMs);
    },
    async wait(request, context) {
      const receivedAtMs = performance.now();
      return directory.find(request.sessionId).wait(request, context.signal, receivedAtMs);
    },
    async yieldObservation(request) {
      directory.find(request.sessionId).yieldObservation(request);
      return {};
    },
    async cancelWait(request) {
      await directory.find(request.sessionId).cancelWait(request);
      return {};
    },
    async terminate(request) {
      const receivedAtMs = performance.now();
      return directory.find(request.sessionId).terminate(request, receivedAtMs);
    },
  };
}
