// A real OpenID Connect provider on 127.0.0.1 for the sign-on tests: the `oidc-provider`
// package (certified), with one confidential client for byok-edge. Its login page asks for an
// email and signs that person in (no password: the identity is the test's to choose); an
// authorization request with a `login_hint` signs that person in without the page, so a test
// without a browser follows redirects alone. An email whose local part starts with
// "unverified-" comes with `email_verified: false`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { type Configuration } from "oidc-provider";
import { readBody } from "./node-http.ts";
import { IDP_CLIENT } from "./sign-on-clients.ts";

export interface OidcIdp {
  issuer: string;
  /** Registers a byok-edge callback URL the provider will redirect to (before the first sign-in through it). */
  allowRedirect(uri: string): Promise<void>;
  close(): Promise<void>;
}

export async function startOidcIdp(redirectUris: string[] = []): Promise<OidcIdp> {
  let provider: Provider | undefined;
  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(`idp: ${String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), alg: "RS256", use: "sig", kid: "idp-test-key" };
  const uris = new Set(redirectUris);

  const build = () => {
    const configuration: Configuration = {
      clients: [
        {
          client_id: IDP_CLIENT.id,
          client_secret: IDP_CLIENT.secret,
          redirect_uris: [...uris],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
      jwks: { keys: [signingKey] },
      cookies: { keys: ["idp-cookie-key-for-tests-only"] },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
      // The email in the ID token itself, as Okta, Google and Keycloak put it there.
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, id) => ({
        accountId: id,
        claims: () => ({ sub: id, email: id, email_verified: !id.startsWith("unverified-"), name: id.split("@")[0] }),
      }),
    };
    const built = new Provider(issuer, configuration);
    built.on("server_error", (_ctx, error) => console.error("idp server_error:", error));
    return built;
  };
  provider = build();

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const current = provider!;
    const match = /^\/interaction\/([^/?]+)/.exec(req.url ?? "");
    if (!match) {
      current.callback()(req, res);
      return;
    }
    const details = await current.interactionDetails(req, res);
    const hint = typeof details.params.login_hint === "string" ? details.params.login_hint : undefined;
    if (req.method === "POST") {
      const email = new URLSearchParams(await readBody(req)).get("email")?.trim().toLowerCase() ?? "";
      return finish(current, req, res, email, String(details.params.client_id));
    }
    if (hint) return finish(current, req, res, hint, String(details.params.client_id));
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><head><title>Test identity provider</title></head><body><main>
<h1>Test identity provider</h1><form method="post" action="/interaction/${match[1]}">
<label>Email <input name="email" type="email" autocomplete="username" required></label>
<button type="submit">Sign in</button></form></main></body></html>`);
  }

  async function finish(current: Provider, req: IncomingMessage, res: ServerResponse, accountId: string, clientId: string) {
    const grant = new current.Grant({ accountId, clientId });
    grant.addOIDCScope("openid email profile");
    const grantId = await grant.save();
    await current.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  return {
    issuer,
    async allowRedirect(uri: string) {
      uris.add(uri);
      provider = build();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
