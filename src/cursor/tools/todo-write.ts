// TodoWrite: a local tool (no exec). It updates the conversation's todo list in
// ToolSessionState, merging by id or replacing it, and shows the whole list.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import { TodoStatus, type ToolCall, type UpdateTodosResultSchema } from "../../proto/gen/agent/v1/agent_pb.ts";
import { boolean, optional, parseArgs } from "./args.ts";
import { success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import type { Tool, ToolContext, ToolResult, ToolSessionState } from "./tool-types.ts";

const STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;
type Status = (typeof STATUSES)[number];

const STATUS_CODE: Record<Status, TodoStatus> = {
  pending: TodoStatus.PENDING,
  in_progress: TodoStatus.IN_PROGRESS,
  completed: TodoStatus.COMPLETED,
  cancelled: TodoStatus.CANCELLED,
};

const TodoInput = z.object({
  // Models sometimes number their items; an id is an id.
  id: z.preprocess((v) => (typeof v === "number" ? String(v) : v), z.string().min(1, "must not be empty")),
  content: optional(z.string()),
  status: optional(z.enum(STATUSES)),
});

const TodoWriteArgsInput = z.object({ todos: z.array(TodoInput), merge: optional(boolean) }).superRefine((args, issues) => {
  if (args.merge) return;
  args.todos.forEach((todo, i) => {
    for (const field of ["content", "status"] as const) {
      if (todo[field] === undefined)
        issues.addIssue({ code: "custom", path: ["todos", i, field], message: "is required unless merge is true" });
    }
  });
});
export type TodoWriteToolArgs = z.output<typeof TodoWriteArgsInput>;

type Todo = ToolSessionState["todos"][number];

export const todoWriteTool: Tool<TodoWriteToolArgs> = {
  name: "TodoWrite",
  definition: definitionOf("TodoWrite"),
  emptyCard: () => toolCard({ case: "updateTodosToolCall", value: {} }),
  parse: (json) => parseArgs("TodoWrite", TodoWriteArgsInput, json),
  startedCard: (args) => card(args),
  run: runTodoWrite,
};

function card(args: TodoWriteToolArgs, result?: MessageInitShape<typeof UpdateTodosResultSchema>): ToolCall {
  const todos = args.todos.map((t) => ({
    id: t.id,
    content: t.content ?? "",
    status: t.status ? STATUS_CODE[t.status] : TodoStatus.UNSPECIFIED,
  }));
  return toolCard({ case: "updateTodosToolCall", value: { args: { todos, merge: args.merge ?? false }, result } });
}

function runTodoWrite(args: TodoWriteToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const wasMerge = args.merge ?? false;
  const list: Todo[] = wasMerge ? ctx.state.todos.map((t) => ({ ...t })) : [];
  for (const incoming of args.todos) {
    const existing = list.find((t) => t.id === incoming.id);
    if (existing) {
      if (incoming.content !== undefined) existing.content = incoming.content;
      if (incoming.status !== undefined) existing.status = incoming.status;
    } else {
      list.push({ id: incoming.id, content: incoming.content ?? "", status: incoming.status ?? "pending" });
    }
  }
  ctx.state.todos = list;

  const todos = list.map((t) => ({ id: t.id, content: t.content, status: statusCode(t.status) }));
  const result = { result: { case: "success" as const, value: { todos, totalCount: list.length, wasMerge } } };
  return Promise.resolve(success(renderTodos(list, wasMerge), card(args, result)));
}

function statusCode(status: string): TodoStatus {
  return (STATUSES as readonly string[]).includes(status) ? STATUS_CODE[status as Status] : TodoStatus.UNSPECIFIED;
}

function renderTodos(list: Todo[], wasMerge: boolean): string {
  if (list.length === 0) return "The todo list is now empty.";
  const head = `Todo list ${wasMerge ? "updated" : "replaced"} (${list.length} ${list.length === 1 ? "item" : "items"}):`;
  return [head, ...list.map((t) => `- [${t.status}] ${t.content} (id: ${t.id})`)].join("\n");
}
