// Runs in Node before the Workers test runtime starts: the fake provider and
// search servers, and the reference wire schemas (compiled by buf from ../shared/reference).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { base64Encode } from "@bufbuild/protobuf/wire";
import type { TestProject } from "vitest/node";
import { startFakeProviderServer } from "./support/fake-provider-server.ts";
import { startFakeSearchServer } from "./support/fake-search-server.ts";
import { startIdpStandIn } from "./support/idp-stand-in.ts";
import { startOidcIdp } from "./support/oidc-idp.ts";
import { startOtlpReceiver } from "./support/otlp-receiver-server.ts";

/** The origin of the worker's requests in tests (test/support/cursor-client.ts BASE): the IdP redirects back to it. */
const TEST_ORIGIN = "http://byok.test";

declare module "vitest" {
  export interface ProvidedContext {
    fakeProviderPort: number;
    fakeSearchPort: number;
    otlpReceiverPort: number;
    /** The real OIDC provider (oidc-provider) and the hand-made one, with Access's certs and signing key (JSON JWK). */
    oidcIssuer: string;
    standInIssuer: string;
    accessCertsUrl: string;
    accessPrivateJwk: string;
    /** base64 FileDescriptorSet of ../shared/reference/*.proto, or "" when absent. */
    referenceDescriptorSet: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startFakeProviderServer();
  const search = await startFakeSearchServer();
  const idp = await startOidcIdp([`${TEST_ORIGIN}/auth/oidc/callback`]);
  const standIn = await startIdpStandIn();
  const otlp = await startOtlpReceiver();
  project.provide("otlpReceiverPort", otlp.port);
  project.provide("oidcIssuer", idp.issuer);
  project.provide("standInIssuer", standIn.issuer);
  project.provide("accessCertsUrl", standIn.accessCertsUrl);
  project.provide("accessPrivateJwk", JSON.stringify(standIn.accessPrivateJwk));
  project.provide("fakeProviderPort", server.port);
  project.provide("fakeSearchPort", search.port);
  project.provide("referenceDescriptorSet", buildReferenceDescriptors());
  return async () => {
    await Promise.all([server.close(), search.close(), idp.close(), standIn.close(), otlp.close()]);
  };
}

/**
 * The reference schemas come from CURSOR_REFERENCE_PROTOS, else ../shared/reference beside the
 * project. A clone of the project alone has neither: the interop tests are then skipped, saying so.
 */
function buildReferenceDescriptors(): string {
  const candidates = [process.env.CURSOR_REFERENCE_PROTOS, resolve(import.meta.dirname, "../../shared/reference")];
  const dir = candidates.find((d): d is string => !!d && existsSync(d));
  if (!dir) {
    console.log("proto-interop: skipped, no reference schemas (set CURSOR_REFERENCE_PROTOS or put shared/reference beside the project)");
    return "";
  }
  const bytes = execFileSync(
    resolve(import.meta.dirname, "../node_modules/.bin/buf"),
    ["build", dir, "--as-file-descriptor-set", "-o", "-#format=binpb"],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return base64Encode(bytes);
}
