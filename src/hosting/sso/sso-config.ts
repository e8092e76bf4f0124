// Which single sign-on a deployment has (docs/hosting.md#single-sign-on): Cloudflare Access when
// ACCESS_TEAM_DOMAIN and ACCESS_AUD are set, OIDC when OIDC_ISSUER, OIDC_CLIENT_ID and
// OIDC_CLIENT_SECRET are. Neither: nothing of sign-on answers, and tokens work as they always have.
import { AppError } from "../../core/errors.ts";

export interface SsoEnv {
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
  ACCESS_CERTS_URL?: string;
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_PROVIDER_NAME?: string;
}

export interface AccessConfig {
  /** `https://<team domain>`: the assertion's `iss`. */
  issuer: string;
  /** One or more application audience tags (comma-separated in ACCESS_AUD). */
  audience: string[];
  certsUrl: string;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the sign-in button says: "Sign in with <name>". */
  name: string;
}

export function accessConfig(env: SsoEnv): AccessConfig | undefined {
  const domain = env.ACCESS_TEAM_DOMAIN?.trim()
    .replace(/^https:\/\//, "")
    .replace(/\/+$/, "");
  const audience = (env.ACCESS_AUD ?? "")
    .split(",")
    .map((aud) => aud.trim())
    .filter(Boolean);
  if (!domain || audience.length === 0) return undefined;
  const issuer = `https://${domain}`;
  return { issuer, audience, certsUrl: env.ACCESS_CERTS_URL?.trim() || `${issuer}/cdn-cgi/access/certs` };
}

export function oidcConfig(env: SsoEnv): OidcConfig | undefined {
  const issuer = env.OIDC_ISSUER?.trim();
  const clientId = env.OIDC_CLIENT_ID?.trim();
  const clientSecret = env.OIDC_CLIENT_SECRET;
  if (!issuer || !clientId || !clientSecret) return undefined;
  return { issuer, clientId, clientSecret, name: env.OIDC_PROVIDER_NAME?.trim() || hostOf(issuer) };
}

export function requireOidc(env: SsoEnv): OidcConfig {
  const config = oidcConfig(env);
  if (!config) {
    throw new AppError(
      "unimplemented",
      "single sign-on through OIDC is not configured here: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (docs/hosting.md#single-sign-on)",
    );
  }
  return config;
}

/** An email claim as sign-in compares it (lower-cased, trimmed); undefined when it is not an email. */
export function emailClaim(value: unknown): string | undefined {
  const email = typeof value === "string" ? value.trim().toLowerCase() : "";
  return /^[^@\s]+@[^@\s]+$/.test(email) ? email : undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
