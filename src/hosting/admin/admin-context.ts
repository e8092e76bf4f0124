// What every admin route file shares: the Hono environment (bindings and the
// authenticated principal) and the factory for a resource's routes, so a new
// resource file is `export const fooRoutes = adminRoutes()` plus one line in api.ts.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal.ts";
import type { AppEnv } from "../../core/env.ts";
import { refuseInvalid } from "./admin-errors.ts";

export type AdminEnv = { Bindings: AppEnv; Variables: { principal: Principal } };

export function adminRoutes(): OpenAPIHono<AdminEnv> {
  return new OpenAPIHono<AdminEnv>({ defaultHook: refuseInvalid });
}
