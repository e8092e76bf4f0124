// Cloudflare Access in front of the deployment (docs/hosting.md#cloudflare-access): the
// `Cf-Access-Jwt-Assertion` header Access adds to each request it lets through, verified with
// jose against the team's JWKS (kept per isolate; jose fetches it again for a `kid` it does not
// know, at most every 30 s). RS256 only; `aud`, `iss`, `exp` and `nbf` are checked.
import { createRemoteJWKSet, errors, jwtVerify } from "jose";
import { AppError } from "../../core/errors.ts";
import { type AccessConfig, emailClaim } from "./sso-config.ts";

export const ACCESS_HEADER = "cf-access-jwt-assertion";

/** The JWKS of each certs URL this isolate has verified against (one per deployment; tests use several). */
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
const MAX_KEY_SETS = 16;

/** What a valid assertion says about its person. */
export interface AccessIdentity {
  email: string;
}

/** The person an assertion names, or unauthenticated saying what was wrong with it (never the assertion). */
export async function verifyAccessAssertion(config: AccessConfig, assertion: string): Promise<AccessIdentity> {
  let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
  try {
    ({ payload } = await jwtVerify(assertion, keySetOf(config.certsUrl), {
      algorithms: ["RS256"],
      audience: config.audience,
      issuer: config.issuer,
      requiredClaims: ["exp"],
    }));
  } catch (err) {
    if (keysUnavailable(err))
      throw new AppError("unavailable", "Cloudflare Access's signing keys could not be fetched just now; try again");
    throw new AppError("unauthenticated", `the Cloudflare Access assertion is not valid: ${reason(err)}`);
  }
  const email = emailClaim(payload.email);
  if (!email) {
    throw new AppError("unauthenticated", "the Cloudflare Access assertion names no email (a service token signs no one in)");
  }
  return { email };
}

function keySetOf(certsUrl: string): ReturnType<typeof createRemoteJWKSet> {
  let keySet = keySets.get(certsUrl);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(certsUrl), { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
    if (keySets.size >= MAX_KEY_SETS) keySets.clear();
    keySets.set(certsUrl, keySet);
  }
  return keySet;
}

/** The JWKS did not answer, or not with keys: not the caller's fault. */
function keysUnavailable(err: unknown): boolean {
  return err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError);
}

/** Why jose refused it, in words that name no part of the token. */
function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "it has expired";
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "nbf") return "it is not valid yet";
    return `its ${err.claim} claim is not the one this deployment expects`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return "it is not signed with RS256";
  if (err instanceof errors.JWKSNoMatchingKey) return "no key of the team's JWKS matches it";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "its signature does not verify";
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return "it is not a well-formed JWT";
  return "it could not be verified";
}
