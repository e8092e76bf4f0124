// CodeModeHost served through connect-es's router and its fetch adapter, by the
// worker (Connect and gRPC-web from clients) and by the session object (Connect
// from the worker). Native gRPC is off: Workers cannot send HTTP trailers
// (docs/code-mode.md#transport).
import { type ContextValues, createConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import { universalServerRequestFromFetch, universalServerResponseToFetch, type UniversalHandler } from "@connectrpc/connect/protocol";
import { CodeModeHost } from "../../proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { FRAME_MAX_BYTES } from "../../proto/connect/envelope.ts";
import { AFTER_REPLY, handOver } from "./after-reply.ts";
import { withEarlyHeaders } from "./early-headers.ts";

export type CodeModeFetchHandler = (request: Request, contextValues: ContextValues) => Promise<Response | undefined>;

/** Undefined for a path that is not one of the service's methods. */
export function codeModeFetchHandler(
  implementation: ServiceImpl<typeof CodeModeHost>,
  protocols: { grpcWeb: boolean },
): CodeModeFetchHandler {
  // connect-es reads up to 4 GiB by default; a message (an 8 MiB tool result at most in practice)
  // is refused with resource_exhausted past the worker's request cap, counted while it streams.
  const router = createConnectRouter({ grpc: false, grpcWeb: protocols.grpcWeb, connect: true, readMaxBytes: FRAME_MAX_BYTES });
  router.service(CodeModeHost, implementation);
  const handlers = new Map<string, UniversalHandler>();
  for (const handler of router.handlers) {
    const streamsToolCalls = handler.method === CodeModeHost.method.subscribeToToolCalls;
    handlers.set(handler.requestPath, streamsToolCalls ? withEarlyHeaders(handler) : handler);
  }
  return async (request, contextValues) => {
    const handler = handlers.get(new URL(request.url).pathname);
    if (!handler) return undefined;
    const universalRequest = { ...universalServerRequestFromFetch(request, {}), contextValues };
    // Only a unary handler has written its whole reply when it returns; afterReply refuses the others.
    if (handler.method.methodKind !== "unary") return universalServerResponseToFetch(await handler(universalRequest));
    const afterReply: (() => void)[] = [];
    contextValues.set(AFTER_REPLY, (work) => afterReply.push(work));
    const response = await handler(universalRequest);
    if (afterReply.length === 0) return universalServerResponseToFetch(response);
    return handOver(response, () => {
      for (const work of afterReply) work();
    });
  };
}
