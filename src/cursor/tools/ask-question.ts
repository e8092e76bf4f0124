// AskQuestion: interaction_query ask_question (3); the user's answers come back
// in the interaction_response and are rendered as "question: chosen labels".
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import type { AskQuestionArgsSchema, AskQuestionResultSchema, AskQuestionSuccess, ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { boolean, optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { interactionReply } from "./exec-reply.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const OptionInput = z.object({ id: z.string().min(1, "must not be empty"), label: z.string() });
const QuestionInput = z.object({
  id: z.string().min(1, "must not be empty"),
  prompt: z.string().min(1, "must not be empty"),
  options: z.array(OptionInput).min(1, "needs at least one option"),
  allow_multiple: optional(boolean),
});
const AskQuestionArgsInput = z.object({
  title: optional(z.string()),
  questions: z.array(QuestionInput).min(1, "needs at least one question"),
});
export type AskQuestionToolArgs = z.output<typeof AskQuestionArgsInput>;

type AskArgsInit = MessageInitShape<typeof AskQuestionArgsSchema>;

export const askQuestionTool: Tool<AskQuestionToolArgs> = {
  name: "AskQuestion",
  definition: definitionOf("AskQuestion"),
  emptyCard: () => toolCard({ case: "askQuestionToolCall", value: {} }),
  parse: (json) => parseArgs("AskQuestion", AskQuestionArgsInput, json),
  startedCard: (args) => card(askArgs(args)),
  run: runAskQuestion,
};

function askArgs(args: AskQuestionToolArgs): AskArgsInit {
  return {
    title: args.title ?? "",
    questions: args.questions.map((q) => ({ id: q.id, prompt: q.prompt, options: q.options, allowMultiple: q.allow_multiple ?? false })),
  };
}

function card(args: AskArgsInit, result?: MessageInitShape<typeof AskQuestionResultSchema>): ToolCall {
  return toolCard({ case: "askQuestionToolCall", value: { args, result } });
}

async function runAskQuestion(args: AskQuestionToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const sent = askArgs(args);
  const response = await ctx.client.interaction({ case: "askQuestionInteractionQuery", value: { args: sent, toolCallId: ctx.toolCallId } });
  const reply = interactionReply(response, "askQuestionInteractionResponse");
  const fail = (message: string) => failure(message, card(sent, { result: { case: "error", value: { errorMessage: message } } }));
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  switch (result?.result.case) {
    case "success":
      return success(renderAnswers(args, result.result.value), card(sent, result));
    case "rejected": {
      const reason = result.result.value.reason;
      return success(`The user declined to answer the questions${reason ? `: ${reason}` : "."}`, card(sent, result));
    }
    case "async":
      return success("The questions were shown to the user; the answers will arrive later as a new message.", card(sent, result));
    case "error":
      return fail(`Asking the user failed: ${result.result.value.errorMessage || "unknown error"}`);
    case undefined:
      return fail("Cursor returned an empty answer to the questions.");
  }
}

function renderAnswers(args: AskQuestionToolArgs, answers: AskQuestionSuccess): string {
  if (answers.answers.length === 0) return "The user submitted no answers.";
  const lines = answers.answers.map((answer) => {
    const question = args.questions.find((q) => q.id === answer.questionId);
    const labels = answer.selectedOptionIds.map((id) => question?.options.find((o) => o.id === id)?.label ?? id);
    const parts = [...labels, ...(answer.freeformText ? [`"${answer.freeformText}"`] : [])];
    return `- ${question?.prompt ?? answer.questionId}: ${parts.length > 0 ? parts.join(", ") : "(no answer)"}`;
  });
  return `The user answered:\n${lines.join("\n")}`;
}
