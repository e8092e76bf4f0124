// Which configured model a Task's subagent runs on: the Task's own `model` when it
// names a configured model, else the client's subagent_model_overrides for that
// subagent type, else the parent model's subagent role (docs/providers.md#roles), else the
// parent's model ("inherit").
import type { SubagentModelOverride } from "../../proto/gen/agent/v1/agent_pb.ts";

export function subagentModelResolver(
  parentModel: string,
  configured: readonly string[],
  overrides: readonly SubagentModelOverride[],
  roleModel?: string,
): (requested: string | undefined, subagentType: string) => string {
  const known = (name: string | undefined): name is string => !!name && configured.includes(name);
  return (requested, subagentType) => {
    if (requested && requested !== "inherit" && known(requested)) return requested;
    const override = overrides.find((o) => o.subagentType === subagentType);
    if (override?.selection.case === "model" && known(override.selection.value.modelId)) return override.selection.value.modelId;
    // An explicit "inherit" keeps the parent's model; only a Task that chose nothing takes the role.
    if (requested !== "inherit" && known(roleModel)) return roleModel;
    return parentModel;
  };
}
