// Custom headers on a model or credential (src/provider/upstream-headers.ts): credential,
// framing and hop-by-hop headers are refused by name; ordinary ones pass.
import { describe, expect, it } from "vitest";
import { checkCustomHeaders } from "../../../src/provider/upstream-headers.ts";

describe("custom upstream headers", () => {
  it("refuses the headers byok-edge sets itself, in any case, naming the header", () => {
    for (const name of ["authorization", "Authorization", "X-API-Key", "HOST", "Content-Length", "cookie"]) {
      expect(checkCustomHeaders({ "anthropic-beta": "x", [name]: "v" }), name).toBe(
        `headers: "${name.toLowerCase()}" cannot be set; byok-edge sets it from the credential and the request`,
      );
    }
  });

  it("refuses hop-by-hop headers, proxy-* included, naming the header", () => {
    for (const name of [
      "connection",
      "Keep-Alive",
      "te",
      "Trailer",
      "transfer-encoding",
      "upgrade",
      "proxy-authorization",
      "Proxy-Connection",
    ]) {
      expect(checkCustomHeaders({ [name]: "v" }), name).toBe(`headers: "${name.toLowerCase()}" is a hop-by-hop header and cannot be set`);
    }
  });

  it("lets gateway, beta and organisation headers through", () => {
    expect(
      checkCustomHeaders({
        "anthropic-beta": "fine-grained-tool-streaming-2025-05-14",
        "OpenAI-Organization": "org-1",
        "cf-aig-authorization": "Bearer gateway-token",
        "x-portkey-api-key": "pk",
        "HTTP-Referer": "https://example.com",
      }),
    ).toBeUndefined();
    expect(checkCustomHeaders({})).toBeUndefined();
  });

  it("refuses a malformed name without echoing it, and a value that could smuggle a header", () => {
    const pasted = "Bearer sk-live-secret-0123456789";
    const error = checkCustomHeaders({ [pasted]: "v" });
    expect(error).toMatch(/not a valid HTTP header name/);
    expect(error).not.toContain("sk-live");
    expect(checkCustomHeaders({ "x-extra": "a\r\nauthorization: Bearer sk-x" })).toBe(
      'headers: the value of "x-extra" contains a line break or NUL',
    );
    expect(checkCustomHeaders({ "x-extra": "a\nb" })).toMatch(/line break/);
  });
});
