// Says once per isolate, in the log, which of the optional secrets are missing
// and what is off because of it (docs/hosting.md#secrets); the calls that need
// one say so again in their error.
let reported = false;

interface Settings {
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  ADMIN_TOKEN?: string;
  KEY_ENCRYPTION_KEY?: string;
  BYOK_TOKEN?: string;
  BYOK_MODELS?: string;
}

export function reportSettingsOnce(env: Settings): void {
  if (reported) return;
  reported = true;
  for (const line of missingSettings(env)) console.warn(`byok-edge: ${line}`);
}

function missingSettings(env: Settings): string[] {
  const lines: string[] = [];
  if (!env.ADMIN_TOKEN && !env.BYOK_TOKEN) {
    lines.push("neither BYOK_TOKEN (single user) nor ADMIN_TOKEN (hosting) is set; only user tokens issued earlier are accepted");
  }
  if (!env.ADMIN_TOKEN) lines.push("ADMIN_TOKEN is not set: the operator API (teams) answers unimplemented");
  if (!env.KEY_ENCRYPTION_KEY) lines.push("KEY_ENCRYPTION_KEY is not set: stored credentials cannot be created");
  if (env.BYOK_TOKEN && !env.BYOK_MODELS) lines.push("BYOK_MODELS is not set: the single-user principal has no models");
  // Sign-on half set up is off, not half on: say which part is missing (docs/hosting.md#single-sign-on).
  if (!env.ACCESS_TEAM_DOMAIN !== !env.ACCESS_AUD) {
    lines.push("Cloudflare Access sign-in is off: set both ACCESS_TEAM_DOMAIN and ACCESS_AUD");
  }
  const oidc = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET];
  if (oidc.some(Boolean) && !oidc.every(Boolean)) {
    lines.push("OIDC sign-in is off: set all of OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET");
  }
  if (env.ADMIN_TOKEN && env.ADMIN_TOKEN === env.BYOK_TOKEN) {
    lines.push("ADMIN_TOKEN equals BYOK_TOKEN: that token is the operator, and single-user mode is unreachable; set different values");
  }
  return lines;
}
