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

/**
 * The agent run over HTTP/1.1: the server stream and the client's appends.
 * @internal exported for test/node/connector/cli.test.ts
 */
export const AGENT_PATHS: readonly string[] = ["/agent.v1.AgentService/RunSSE", "/aiserver.v1.BidiService/BidiAppend"];

/**
 * The model catalogue and server config, answered by the worker itself
 * (src/cursor/routes/unary-routes.ts): the deployment's answer forces HTTP/1.1 and
 * lists its models.
 * @internal exported for test/node/connector/cli.test.ts
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

/**
 * Calls the worker also answers (for clients pointed at it directly, like the
 * `agent` CLI) that the connector leaves with Cursor, so the app stays signed in
 * to the user's Cursor account with its own answers. Not routed, so not used
 * here: the list is the decision, written down. test/node/connector/cli.test.ts
 * fails for any worker route in neither this list nor the routed ones.
 * @internal exported for that test
 */
export const STAYS_WITH_CURSOR: readonly string[] = [
  // Clock and connectivity probes, about the host the app is talking to.
  "/aiserver.v1.AiService/ServerTime",
  "/aiserver.v1.NetworkService/IsConnected",
  // The user's Cursor account: who they are, profile, privacy mode, usage and limits, team.
  "/aiserver.v1.AuthService/GetEmail",
  "/aiserver.v1.AuthService/GetUserMeta",
  "/aiserver.v1.DashboardService/GetMe",
  "/aiserver.v1.DashboardService/GetTeams",
  "/aiserver.v1.DashboardService/GetUserProfile",
  "/aiserver.v1.DashboardService/GetCurrentPeriodUsage",
  "/aiserver.v1.DashboardService/GetUsageLimitStatusAndActiveGrants",
  "/aiserver.v1.DashboardService/GetUserPrivacyMode",
  "/aiserver.v1.DashboardService/GetTeamReposOrEmptyIfNotInTeam",
  "/aiserver.v1.DashboardService/GetTeamAdminSettingsOrEmptyIfNotInTeam",
  // Cursor's own features on that account: plugins, marketplaces, skills, commands, docs.
  "/aiserver.v1.DashboardService/GetEffectiveUserPlugins",
  "/aiserver.v1.DashboardService/ListMarketplaces",
  "/aiserver.v1.DashboardService/GetManagedSkills",
  "/aiserver.v1.DashboardService/GetGlobalCommands",
  "/aiserver.v1.AiService/AvailableDocs",
  // The app's conversation list (names, workspace paths), kept by Cursor as without the connector.
  "/agent.v1.AgentService/UpdateConversationMetadata",
  // The app's feature flags.
  "/aiserver.v1.AnalyticsService/BootstrapStatsig",
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
