// The OIDC clients the test identity providers know byok-edge as (test/support/oidc-idp.ts,
// idp-stand-in.ts), shared with the worker's side of the sign-on tests (sign-on.ts).
export const IDP_CLIENT = { id: "byok-edge", secret: "idp-client-secret-never-logged-7f3a" };
export const STAND_IN_CLIENT = { id: "byok-edge-stand-in", secret: "stand-in-secret-never-logged-91c2" };
