// OpenID Connect sign-in (docs/hosting.md#oidc) through oauth4webapi: discovery from
// OIDC_ISSUER (kept per isolate for 10 minutes), the authorization code flow with PKCE (S256),
// `state` and `nonce`, client_secret_basic at the token endpoint, and the ID token's signature
// checked against the issuer's JWKS on top of the library's checks of `iss`, `aud`, `exp`,
// `nonce`. What comes out is the person's email and whether the provider verified it.
import * as oauth from "oauth4webapi";
import { AppError } from "../../core/errors.ts";
import { emailClaim, type OidcConfig } from "./sso-config.ts";

const DISCOVERY_TTL_MS = 10 * 60_000;
/** An ID token issued further ahead than this is refused: the two clocks disagree too much to trust it. */
const FUTURE_SKEW_S = 60;
const SCOPES = "openid email profile";

const discovered = new Map<string, { server: oauth.AuthorizationServer; atMs: number }>();

/** What the deployment keeps between the redirect to the provider and its answer (table sso_attempts). */
export interface OidcAttempt {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcIdentity {
  email: string;
  emailVerified: boolean;
}

/** The provider's authorization URL for a new attempt, and the attempt to keep. */
export async function startOidc(
  config: OidcConfig,
  redirectUri: string,
  loginHint: string | undefined,
): Promise<{ url: URL; attempt: OidcAttempt }> {
  const server = await serverOf(config);
  if (!server.authorization_endpoint) throw misconfigured("its discovery document has no authorization_endpoint");
  const attempt = {
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    codeVerifier: oauth.generateRandomCodeVerifier(),
  };
  const url = new URL(server.authorization_endpoint);
  const params = url.searchParams;
  params.set("client_id", config.clientId);
  params.set("redirect_uri", redirectUri);
  params.set("response_type", "code");
  params.set("scope", SCOPES);
  params.set("state", attempt.state);
  params.set("nonce", attempt.nonce);
  params.set("code_challenge", await oauth.calculatePKCECodeChallenge(attempt.codeVerifier));
  params.set("code_challenge_method", "S256");
  if (loginHint) params.set("login_hint", loginHint);
  return { url, attempt };
}

/** The person the provider's answer at `callbackUrl` signs in; unauthenticated saying why it is refused. */
export async function finishOidc(config: OidcConfig, callbackUrl: URL, redirectUri: string, attempt: OidcAttempt): Promise<OidcIdentity> {
  const server = await serverOf(config);
  const client: oauth.Client = { client_id: config.clientId };
  const options = requestOptions(config);
  try {
    const params = oauth.validateAuthResponse(server, client, callbackUrl, attempt.state);
    const response = await oauth.authorizationCodeGrantRequest(
      server,
      client,
      oauth.ClientSecretBasic(config.clientSecret),
      params,
      redirectUri,
      attempt.codeVerifier,
      options,
    );
    const result = await oauth.processAuthorizationCodeResponse(server, client, response, {
      expectedNonce: attempt.nonce,
      requireIdToken: true,
    });
    await oauth.validateApplicationLevelSignature(server, response, options);
    const claims = oauth.getValidatedIdTokenClaims(result);
    if (!claims) throw new AppError("unauthenticated", "the identity provider sent no ID token");
    if (claims.iat > Math.floor(Date.now() / 1000) + FUTURE_SKEW_S) {
      throw new AppError("unauthenticated", "the ID token was issued in the future; check the identity provider's clock");
    }
    const email = emailClaim(claims.email);
    if (!email) throw new AppError("permission_denied", "the identity provider sent no email for you (ask for the email scope)");
    // Entra ID says it as `xms_edov` (its optional claim: the email's domain owner verified it).
    return { email, emailVerified: claims.email_verified === true || claims.xms_edov === true };
  } catch (err) {
    throw refusal(err);
  }
}

async function serverOf(config: OidcConfig): Promise<oauth.AuthorizationServer> {
  const cached = discovered.get(config.issuer);
  if (cached && Date.now() - cached.atMs < DISCOVERY_TTL_MS) return cached.server;
  const issuer = new URL(config.issuer);
  let server: oauth.AuthorizationServer;
  try {
    const response = await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...requestOptions(config) });
    server = await oauth.processDiscoveryResponse(issuer, response);
  } catch (err) {
    console.error("byok-edge: OIDC discovery failed:", err instanceof Error ? err.name : "error");
    throw new AppError(
      "unavailable",
      `the identity provider at ${issuer.origin} could not be reached for its discovery document; try again`,
    );
  }
  discovered.set(config.issuer, { server, atMs: Date.now() });
  return server;
}

/** Plain HTTP only for an issuer on this machine (a local identity provider in development and tests). */
function requestOptions(config: OidcConfig): { [oauth.allowInsecureRequests]?: boolean; signal: AbortSignal } {
  const { protocol, hostname } = new URL(config.issuer);
  const local = protocol === "http:" && (hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]");
  return { ...(local && { [oauth.allowInsecureRequests]: true }), signal: AbortSignal.timeout(10_000) };
}

/** The library's refusal in words for the person signing in; the provider's own error code when it sent one. */
function refusal(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof oauth.AuthorizationResponseError) {
    return new AppError("unauthenticated", `the identity provider refused the sign-in: ${err.error}`);
  }
  if (err instanceof oauth.ResponseBodyError) {
    return new AppError("unauthenticated", `the identity provider refused the code: ${err.error}`);
  }
  if (err instanceof oauth.OperationProcessingError) {
    return new AppError("unauthenticated", `the identity provider's answer was refused: ${err.message}`);
  }
  if (err instanceof Error && (err.name === "TimeoutError" || err instanceof TypeError)) {
    return new AppError("unavailable", "the identity provider could not be reached; try again");
  }
  return new AppError("unauthenticated", "the sign-in could not be completed");
}

function misconfigured(why: string): AppError {
  return new AppError("failed_precondition", `the identity provider at OIDC_ISSUER is not usable: ${why}`);
}
