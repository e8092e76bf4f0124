// Sign-on's two cookies (docs/hosting.md#sessions): the session and the OIDC state. `__Host-`
// names, so the browser takes them only Secure, for Path=/, from this host itself: a sibling
// subdomain cannot plant one of its own beside them. HttpOnly, SameSite=Lax.
import { parse } from "hono/utils/cookie";

export const SESSION_COOKIE = "__Host-byok_session";
export const STATE_COOKIE = "__Host-byok_oidc_state";

/** A cookie's Set-Cookie value; an empty one with Max-Age=0 deletes it. */
export function setCookie(name: string, value: string, maxAgeS: number): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeS}; HttpOnly; Secure; SameSite=Lax`;
}

export function cookieOf(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  const value = header ? parse(header, name)[name] : undefined;
  return value ? value : undefined;
}
