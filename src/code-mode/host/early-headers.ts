// Response headers before the first message. connect-es holds a stream's headers
// until its first message (so that a handler may still add some); but a client's
// only sign that its SubscribeToToolCalls is registered is the headers, and the
// first ToolCall may never come. A handler wrapped here calls sendHeadersNow()
// once the subscription exists, and the response starts with those headers.
import { type ContextValues, createContextKey, createContextValues, type HandlerContext } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from "@connectrpc/connect/protocol";

const SEND_HEADERS = createContextKey<((header: Headers) => void) | undefined>(undefined, { description: "send the response headers now" });

/** The stream's headers go out now (a no-op outside withEarlyHeaders). */
export function sendHeadersNow(context: HandlerContext): void {
  context.values.get(SEND_HEADERS)?.(context.responseHeader);
}

export function withEarlyHeaders(handler: UniversalHandler): UniversalHandler {
  async function handle(request: UniversalServerRequest): Promise<UniversalServerResponse> {
    const early = Promise.withResolvers<Headers>();
    const contextValues: ContextValues = request.contextValues ?? createContextValues();
    contextValues.set(SEND_HEADERS, early.resolve);
    // A consumer that stops reading the late body must still reach the handler.
    const stop = new AbortController();
    const responding = handler({ ...request, contextValues, signal: AbortSignal.any([request.signal, stop.signal]) });
    const first = await Promise.race([responding, early.promise]);
    if (!(first instanceof Headers)) return first;
    // The implementation is running, so the status is decided: errors now travel in the body.
    return { status: 200, header: first, body: lateBody(responding, stop) };
  }
  return Object.assign(handle, handler);
}

function lateBody(responding: Promise<UniversalServerResponse>, stop: AbortController): AsyncIterable<Uint8Array> {
  let inner: Promise<AsyncIterator<Uint8Array>> | undefined;
  const body = () => {
    inner ??= responding.then((response) => (response.body ?? emptyBody())[Symbol.asyncIterator]());
    return inner;
  };
  return {
    [Symbol.asyncIterator]: () => ({
      next: async () => (await body()).next(),
      throw: async (error: unknown) => {
        stop.abort(error);
        const it = await body();
        return it.throw ? it.throw(error) : { done: true, value: undefined };
      },
      return: async (value?: unknown) => {
        stop.abort();
        const it = await body();
        return it.return ? it.return(value) : { done: true, value: undefined };
      },
    }),
  };
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}
