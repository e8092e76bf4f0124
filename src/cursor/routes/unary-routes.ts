// Every unary call Cursor makes besides the agent run, answered locally
// (docs/protocol.md#endpoints): server config, the model catalogue, the account
// calls and the calls whose empty reply is the right reply.
import { create, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import {
  AvailableModelsResponseSchema,
  BootstrapStatsigResponseSchema,
  GetDefaultModelNudgeDataResponseSchema,
  GetDefaultModelResponseSchema,
  GetMeResponseSchema,
  GetServerConfigResponseSchema,
  Http2Config,
  ServerTimeResponseSchema,
} from "../../proto/gen/aiserver/v1/aiserver_pb.ts";
import { GetEmailResponseSchema } from "../../proto/gen/aiserver/v1/unlisted_pb.ts";
import { GetDefaultModelForCliResponseSchema, GetUsableModelsResponseSchema } from "../../proto/gen/agent/v1/agent_pb.ts";
import type { ModelConfig } from "../../provider/types.ts";
import { availableModels, defaultModel, defaultModelForCli, defaultModelNudgeData, usableModels } from "../catalog/model-list.ts";

interface UnaryContext {
  models: ModelConfig[];
  principal: string;
  /** A hosted user's email; the single-user principal has none. */
  email?: string;
}

type Handler = (ctx: UnaryContext) => Uint8Array;

function reply<D extends DescMessage>(schema: D, build: (ctx: UnaryContext) => MessageShape<D>): Handler {
  return (ctx) => toBinary(schema, build(ctx));
}

const EMPTY: Handler = () => new Uint8Array(0);

const serverConfig = reply(GetServerConfigResponseSchema, () =>
  create(GetServerConfigResponseSchema, {
    configVersion: "byok-edge-1",
    // HTTP/1.1 RunSSE + BidiAppend instead of the HTTP/2 bidi Run, which Workers cannot serve.
    http2Config: Http2Config.FORCE_ALL_DISABLED,
    cliSandboxDefaultEnabled: true,
  }),
);

const usable = reply(GetUsableModelsResponseSchema, (ctx) => usableModels(ctx.models));
const defaultForCli = reply(GetDefaultModelForCliResponseSchema, (ctx) => defaultModelForCli(ctx.models));

const accountEmail = (ctx: UnaryContext) => ctx.email ?? `${ctx.principal}@byok-edge.invalid`;

export const UNARY_ROUTES: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["/aiserver.v1.AiService/GetServerConfig", serverConfig],
  ["/aiserver.v1.ServerConfigService/GetServerConfig", serverConfig],
  ["/aiserver.v1.AiService/AvailableModels", reply(AvailableModelsResponseSchema, (ctx) => availableModels(ctx.models))],
  // Cursor asks both services; both answer with agent.v1 ModelDetails.
  ["/aiserver.v1.AiService/GetUsableModels", usable],
  ["/agent.v1.AgentService/GetUsableModels", usable],
  ["/aiserver.v1.AiService/GetDefaultModelForCli", defaultForCli],
  ["/agent.v1.AgentService/GetDefaultModelForCli", defaultForCli],
  ["/aiserver.v1.AiService/GetDefaultModel", reply(GetDefaultModelResponseSchema, (ctx) => defaultModel(ctx.models))],
  [
    "/aiserver.v1.AiService/GetDefaultModelNudgeData",
    reply(GetDefaultModelNudgeDataResponseSchema, (ctx) => defaultModelNudgeData(ctx.models)),
  ],
  [
    "/aiserver.v1.AiService/ServerTime",
    reply(ServerTimeResponseSchema, () =>
      create(ServerTimeResponseSchema, { receiveTimestamp: Date.now(), transmitTimestamp: Date.now() }),
    ),
  ],
  // Cursor aborts in-flight work when this probe fails, so it must always succeed.
  ["/aiserver.v1.NetworkService/IsConnected", EMPTY],
  [
    "/aiserver.v1.AuthService/GetEmail",
    reply(GetEmailResponseSchema, (ctx) => create(GetEmailResponseSchema, { email: accountEmail(ctx) })),
  ],
  ["/aiserver.v1.AuthService/GetUserMeta", EMPTY],
  [
    "/aiserver.v1.DashboardService/GetMe",
    reply(GetMeResponseSchema, (ctx) => create(GetMeResponseSchema, { authId: ctx.principal, userId: 1, email: accountEmail(ctx) })),
  ],
  ["/aiserver.v1.DashboardService/GetTeams", EMPTY],
  ["/aiserver.v1.DashboardService/GetUserProfile", EMPTY],
  ["/aiserver.v1.DashboardService/GetCurrentPeriodUsage", EMPTY],
  ["/aiserver.v1.DashboardService/GetUsageLimitStatusAndActiveGrants", EMPTY],
  ["/aiserver.v1.DashboardService/GetUserPrivacyMode", EMPTY],
  ["/aiserver.v1.DashboardService/GetEffectiveUserPlugins", EMPTY],
  ["/aiserver.v1.DashboardService/GetTeamReposOrEmptyIfNotInTeam", EMPTY],
  ["/aiserver.v1.DashboardService/GetTeamAdminSettingsOrEmptyIfNotInTeam", EMPTY],
  ["/aiserver.v1.DashboardService/ListMarketplaces", EMPTY],
  ["/aiserver.v1.DashboardService/GetManagedSkills", EMPTY],
  ["/aiserver.v1.DashboardService/GetGlobalCommands", EMPTY],
  ["/aiserver.v1.AiService/AvailableDocs", EMPTY],
  ["/agent.v1.AgentService/UpdateConversationMetadata", EMPTY],
  [
    "/aiserver.v1.AnalyticsService/BootstrapStatsig",
    reply(BootstrapStatsigResponseSchema, () =>
      create(BootstrapStatsigResponseSchema, { config: "{}", generatedAtMs: BigInt(Date.now()) }),
    ),
  ],
]);
