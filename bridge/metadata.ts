// Which metadata crosses the bridge. Application metadata (custom headers and
// trailers, e.g. tracing) passes both ways; what belongs to one hop's protocol
// (content type, compression, timeouts, status trailers, HTTP/1.1 hop-by-hop
// headers) is left for that hop's own connect-es code to write; and the client's
// credentials never reach the upstream: the bridge sets its own bearer token.
const HOP_HEADERS = new Set([
  "authorization",
  "connection",
  "content-encoding",
  "content-length",
  "content-type",
  "accept-encoding",
  "date",
  "host",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "user-agent",
  "x-grpc-web",
  "x-user-agent",
]);
const HOP_PREFIXES = [":", "grpc-", "connect-"];

function passes(name: string): boolean {
  return !HOP_HEADERS.has(name) && !HOP_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** The upstream request's headers: the client's application metadata plus the bridge's bearer token. */
export function upstreamRequestHeader(clientHeader: Headers, token: string | undefined): Headers {
  const header = new Headers();
  clientHeader.forEach((value, name) => {
    if (passes(name)) header.append(name, value);
  });
  if (token !== undefined) header.set("authorization", `Bearer ${token}`);
  return header;
}

/** Copies the upstream's application metadata (response headers or trailers) onto the client's. */
export function copyUpstreamMetadata(from: Headers, to: Headers): void {
  from.forEach((value, name) => {
    if (passes(name)) to.append(name, value);
  });
}
