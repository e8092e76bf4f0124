// Who is calling. In local single-user mode the only principal is "local", proven
// by BYOK_TOKEN; every object name is scoped by the principal, so nobody can
// reach another principal's conversations.
import { AppError } from "../proto/connect/error.ts";

export interface Principal {
  id: string;
}

const LOCAL_PRINCIPAL: Principal = { id: "local" };

export async function authenticate(request: Request, env: { BYOK_TOKEN?: string }): Promise<Principal> {
  const expected = env.BYOK_TOKEN;
  if (!expected) {
    throw new AppError("unauthenticated", "byok-edge has no BYOK_TOKEN configured; set it in .dev.vars or as a secret");
  }
  const header = request.headers.get("authorization") ?? "";
  const match = header.match(/^Bearer\s+(.+)$/i);
  if (!match?.[1] || !(await sameSecret(match[1].trim(), expected))) {
    throw new AppError("unauthenticated", "missing or invalid bearer token");
  }
  return LOCAL_PRINCIPAL;
}

/** Constant-time comparison of digests, so neither length nor content leaks through timing. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", enc.encode(given)),
    crypto.subtle.digest("SHA-256", enc.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
