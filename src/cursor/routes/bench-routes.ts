// Baselines for `npm run bench` (bench/turn-latency.ts). They exist only when
// BYOK_BENCH_ROUTES is "true" (the bench starts wrangler dev with that var);
// otherwise they answer exactly like any unknown path. Mounted after the bearer
// check, so they need the same token as everything else.
//   POST /__bench/passthrough {url, body?}: fetches a loopback URL and streams its
//     body back unchanged (the same worker, without router/conversation objects).
//   POST /__bench/echo: reads the request body, answers 200 with an empty body
//     (the baseline for a BidiAppend round trip).
import { Hono } from "hono";
import { AppError } from "../../core/errors.ts";
import type { AppEnv } from "../../core/env.ts";
import { protoResponse } from "../../proto/connect/http.ts";

type BenchEnv = AppEnv & { BYOK_BENCH_ROUTES?: string };

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const BODY_MAX_BYTES = 1024 * 1024;

export const benchRoutes = new Hono<{ Bindings: BenchEnv }>();

benchRoutes.use("*", async (c, next) => {
  if (c.env.BYOK_BENCH_ROUTES !== "true") {
    throw new AppError("unimplemented", `${c.req.path} is not served by byok-edge`);
  }
  await next();
});

benchRoutes.post("/passthrough", async (c) => {
  const { url, body } = await readPassthroughRequest(c.req.raw);
  const upstream = await fetch(url, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json", accept: "text/event-stream" },
    body,
  });
  return new Response(upstream.body, {
    status: upstream.status,
    headers: {
      "content-type": upstream.headers.get("content-type") ?? "application/octet-stream",
      "cache-control": "no-cache",
    },
  });
});

benchRoutes.post("/echo", async (c) => {
  await c.req.raw.arrayBuffer();
  return protoResponse(new Uint8Array(0));
});

async function readPassthroughRequest(request: Request): Promise<{ url: string; body: string | undefined }> {
  const text = await request.text();
  if (text.length > BODY_MAX_BYTES) throw new AppError("invalid_argument", "bench: body too large");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError("invalid_argument", "bench: body must be JSON {url, body?}");
  }
  const { url, body } = (parsed ?? {}) as { url?: unknown; body?: unknown };
  if (typeof url !== "string") throw new AppError("invalid_argument", "bench: url must be a string");
  if (body !== undefined && typeof body !== "string") throw new AppError("invalid_argument", "bench: body must be a string");
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new AppError("invalid_argument", "bench: url is not a valid URL");
  }
  if ((target.protocol !== "http:" && target.protocol !== "https:") || !LOOPBACK_HOSTS.has(target.hostname)) {
    throw new AppError("invalid_argument", "bench: only http(s) URLs on 127.0.0.1 or localhost are allowed");
  }
  return { url: target.toString(), body };
}
