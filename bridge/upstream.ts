// The bridge's client side: a standard connect-node transport to the upstream.
// Connect and gRPC-web run over HTTP/1.1, which is what Workers serve (no
// trailers needed); native gRPC (HTTP/2) is there for an upstream that speaks
// it, such as Codex's own codex-code-mode-host.
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import type { UpstreamProtocol } from "./options.ts";

/** Codex allows messages up to 64 MiB (an 8 MiB tool result is routine); the bridge must not be the narrower pipe. */
export const MESSAGE_MAX_BYTES = 64 * 1024 * 1024;

export function createUpstreamTransport(protocol: UpstreamProtocol, baseUrl: string): Transport {
  const common = { baseUrl, readMaxBytes: MESSAGE_MAX_BYTES, writeMaxBytes: MESSAGE_MAX_BYTES };
  switch (protocol) {
    case "connect":
      return createConnectTransport({ ...common, httpVersion: "1.1", useBinaryFormat: true });
    case "grpc-web":
      return createGrpcWebTransport({ ...common, httpVersion: "1.1", useBinaryFormat: true });
    case "grpc":
      return createGrpcTransport(common);
  }
}
