// The sign-on routes under /auth (docs/hosting.md#single-sign-on): what the dashboard's sign-in
// button needs to know, the OIDC redirect and its callback, and the connector's browser login.
// Browser pages answer in HTML; the connector's token exchange in the admin API's JSON errors.
import { adminRoutes } from "../admin/admin-context.ts";
import { connectorApprove, connectorStart, connectorToken } from "./connector-login.ts";
import { oidcCallback, oidcLogin } from "./oidc-routes.ts";
import { accessConfig, oidcConfig } from "./sso-config.ts";

export const signOnRoutes = adminRoutes().basePath("/auth");

/** Public: which sign-in this deployment offers, for the dashboard's button. */
signOnRoutes.get("/providers", (c) => {
  const oidc = oidcConfig(c.env);
  return c.json({
    oidc: oidc ? { name: oidc.name, login_url: "/auth/oidc/login" } : null,
    access: accessConfig(c.env) !== undefined,
  });
});

signOnRoutes.get("/oidc/login", oidcLogin);
signOnRoutes.get("/oidc/callback", oidcCallback);
signOnRoutes.get("/connector/start", connectorStart);
signOnRoutes.post("/connector/approve", connectorApprove);
signOnRoutes.post("/connector/token", connectorToken);
