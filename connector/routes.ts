// What the connector intercepts (docs/connector.md#what-goes-where): the Cursor
// API hosts whose TLS it terminates, and on them the paths it sends to the
// deployment. Everything else on those hosts goes to the real host unchanged;
// every other host is a blind tunnel.

/**
 * Hosts whose TLS the connector terminates. api2 carries every unary call and
 * the HTTP/1.1 agent transport (RunSSE + BidiAppend); the agentn hosts carry the
 * HTTP/2 `Run`, which Cursor sends past `http.proxy` — listed so that whatever
 * does reach them through the proxy is routed too. The CA's name constraints
 * allow exactly these names (connector/ca.ts).
 */
export const ROUTED_HOSTS: readonly string[] = ["api2.cursor.sh", "agentn.api5.cursor.sh", "agentn.global.api5.cursor.sh"];

/** The agent run over HTTP/1.1: the server stream and the client's appends. */
const AGENT_PATHS = ["/agent.v1.AgentService/RunSSE", "/aiserver.v1.BidiService/BidiAppend"];

/**
 * The model catalogue and server config (keys of src/catalog/unary-routes.ts
 * UNARY_ROUTES, checked by test/node/connector-routes.test.ts): the deployment's
 * answer forces HTTP/1.1 and lists its models. Account calls (GetMe, GetEmail, …)
 * stay with Cursor, so the app remains signed in to the user's Cursor account.
 * @internal exported for that test
 */
export const CATALOGUE_PATHS: readonly string[] = [
  "/aiserver.v1.AiService/GetServerConfig",
  "/aiserver.v1.ServerConfigService/GetServerConfig",
  "/aiserver.v1.AiService/AvailableModels",
  "/aiserver.v1.AiService/GetUsableModels",
  "/agent.v1.AgentService/GetUsableModels",
  "/aiserver.v1.AiService/GetDefaultModelForCli",
  "/agent.v1.AgentService/GetDefaultModelForCli",
  "/aiserver.v1.AiService/GetDefaultModel",
  "/aiserver.v1.AiService/GetDefaultModelNudgeData",
];

const ROUTED_PATHS: ReadonlySet<string> = new Set([...AGENT_PATHS, ...CATALOGUE_PATHS]);

export function isRoutedHost(host: string, routedHosts: readonly string[] = ROUTED_HOSTS): boolean {
  return routedHosts.includes(host.toLowerCase());
}

/** `target` is the request's origin-form target; its query string does not change the route. */
export function isRoutedPath(target: string): boolean {
  const q = target.indexOf("?");
  return ROUTED_PATHS.has(q === -1 ? target : target.slice(0, q));
}
