// The few pages sign-on answers a browser with (a refusal, the connector's confirmation): small
// HTML from hono/html, which escapes every value, under a CSP that allows nothing but their own
// inline style and, for the connector's form, its redirect back to the loopback address.
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { AppError, httpStatus, toAppError } from "../../core/errors.ts";

const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";
/** A form whose answer redirects to the connector on this computer (docs/hosting.md#the-connectors-browser-login); the same hosts connector-login.ts accepts. */
const CSP_LOOPBACK_FORM = `${CSP}; form-action 'self' http://127.0.0.1:* http://localhost:*`;

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1b1b1f}
h1{font-size:1.4rem}button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}a{color:#0b57d0}`;

export async function page(
  status: number,
  title: string,
  body: HtmlEscapedString | Promise<HtmlEscapedString>,
  loopbackForm = false,
): Promise<Response> {
  const document = await html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · byok-edge</title><style>${STYLE}</style></head>
<body><main><h1>${title}</h1>${await body}</main></body></html>`;
  return new Response(document.toString(), {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": loopbackForm ? CSP_LOOPBACK_FORM : CSP,
      "cache-control": "no-store",
      // Not no-referrer: under it a browser sends `Origin: null` with the form, which the same-origin check refuses.
      "referrer-policy": "same-origin",
      "x-content-type-options": "nosniff",
    },
  });
}

/** A sign-on failure as a page: its status (401, 403, …) and its message, with a way back. */
export function errorPage(err: unknown): Promise<Response> {
  const error = err instanceof AppError ? err : toAppError(err);
  if (httpStatus(error) >= 500 && !(err instanceof AppError)) console.error("byok-edge: sign-on failed:", error.name);
  const title = httpStatus(error) === 403 ? "You cannot sign in here" : "Sign-in did not complete";
  return page(httpStatus(error), title, html`<p>${error.rawMessage}</p><p><a href="/">Back to byok-edge</a></p>`);
}
