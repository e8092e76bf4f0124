// A hand-made identity provider on 127.0.0.1 for what a real one never sends: ID tokens with a
// wrong nonce, audience or issuer, expired or issued in the future; and the certs of a
// Cloudflare Access team (`/cdn-cgi/access/certs`), whose private key the tests get to sign
// assertions with. The ID token's flaw is chosen by the authorization request's login_hint,
// "<flaw>:<email>" (flaw "none" for a good token), which byok-edge's /auth/oidc/login passes on.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { readBody, sendJson } from "./node-http.ts";
import { STAND_IN_CLIENT } from "./sign-on-clients.ts";

type IdTokenFlaw = "none" | "wrong-nonce" | "expired" | "future" | "wrong-aud" | "wrong-iss";

export interface IdpStandIn {
  issuer: string;
  /** The Access team's certs URL (ACCESS_CERTS_URL) and the private JWK that signs for it. */
  accessCertsUrl: string;
  accessPrivateJwk: JWK;
  close(): Promise<void>;
}

export async function startIdpStandIn(): Promise<IdpStandIn> {
  const idp = await generateKeyPair("RS256", { extractable: true });
  const access = await generateKeyPair("RS256", { extractable: true });
  const idpPublic = { ...(await exportJWK(idp.publicKey)), kid: "stand-in-idp", alg: "RS256", use: "sig" };
  const accessPublic = { ...(await exportJWK(access.publicKey)), kid: "stand-in-access", alg: "RS256", use: "sig" };
  const accessPrivateJwk = { ...(await exportJWK(access.privateKey)), kid: "stand-in-access", alg: "RS256" };
  /** code → what the authorization request asked. */
  const codes = new Map<string, { email: string; flaw: IdTokenFlaw; nonce: string }>();
  let issuer = "";

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", issuer);
    if (url.pathname === "/.well-known/openid-configuration") {
      return sendJson(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (url.pathname === "/jwks") return sendJson(res, 200, { keys: [idpPublic] });
    if (url.pathname === "/cdn-cgi/access/certs") return sendJson(res, 200, { keys: [accessPublic], public_cert: {}, public_certs: [] });
    if (url.pathname === "/authorize") {
      const [flaw, email] = (url.searchParams.get("login_hint") ?? "none:someone@example.com").split(":") as [IdTokenFlaw, string];
      const code = `code-${codes.size}-${Math.random().toString(36).slice(2)}`;
      codes.set(code, { email, flaw, nonce: url.searchParams.get("nonce") ?? "" });
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const asked = codes.get(new URLSearchParams(await readBody(req)).get("code") ?? "");
      if (!asked) return sendJson(res, 400, { error: "invalid_grant" });
      const now = Math.floor(Date.now() / 1000);
      const times = { expired: [now - 7200, now - 3600], future: [now + 3600, now + 7200] }[asked.flaw as "expired"] ?? [now, now + 600];
      const idToken = await new SignJWT({
        email: asked.email,
        email_verified: true,
        nonce: asked.flaw === "wrong-nonce" ? "not-the-nonce-it-asked-for" : asked.nonce,
      })
        .setProtectedHeader({ alg: "RS256", kid: "stand-in-idp" })
        .setIssuer(asked.flaw === "wrong-iss" ? "https://elsewhere.example" : issuer)
        .setAudience(asked.flaw === "wrong-aud" ? "someone-else" : STAND_IN_CLIENT.id)
        .setSubject(asked.email)
        .setIssuedAt(times[0]!)
        .setExpirationTime(times[1]!)
        .sign(idp.privateKey);
      return sendJson(res, 200, { access_token: "stand-in-access-token", token_type: "Bearer", expires_in: 600, id_token: idToken });
    }
    sendJson(res, 404, { error: "not_found" });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(error) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    accessCertsUrl: `${issuer}/cdn-cgi/access/certs`,
    accessPrivateJwk,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
