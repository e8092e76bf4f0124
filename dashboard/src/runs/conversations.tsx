// Recent conversations, most recently active first; "Runs" on a row loads that
// conversation's runs (GET /runs?conversation_id=&user_id=) into the row below it.
import { useCallback } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import { formatNumber as count, formatDateTime as dateTime } from "../format.ts";
import { type PageReader, usePaged } from "./paged.ts";
import { RunTable, Status } from "./run-table.tsx";
import type { Conversation, Run } from "../types.ts";
import { type Column, DataTable, ExpandButton } from "../ui/table.tsx";
import { useToggleSet } from "../ui/toggle-set.ts";
import { rowKey, shortId, whose } from "./shapes.ts";
import { LoadMore } from "./load-more.tsx";

export function Conversations({ api, showUser }: { api: Api; showUser: boolean }) {
  const read = useCallback<PageReader<Conversation>>(
    (page) =>
      answer(api.GET("/api/v1/conversations", { params: { query: page } })).then((a) => ({
        items: a.conversations,
        next_before: a.next_before,
      })),
    [api],
  );
  const list = usePaged(read);
  const [open, toggle] = useToggleSet();
  if (!list.loading && !list.error && list.items.length === 0) {
    return <p class="empty">No conversations yet. They appear here after their first run.</p>;
  }
  const runsId = (c: Conversation) => `conversation-${rowKey(c)}-runs`;
  const columns: Column<Conversation>[] = [
    {
      header: "Conversation",
      cell: (c) => {
        const isOpen = open.has(rowKey(c));
        return (
          <>
            <ExpandButton class="link" open={isOpen} controls={runsId(c)} onToggle={() => toggle(rowKey(c))}>
              <span class="visually-hidden">{isOpen ? "Hide runs of" : "Show runs of"} conversation </span>
              <code title={c.id}>{shortId(c.id)}</code>
            </ExpandButton>
            <div class="sub">since {dateTime(c.started_at)}</div>
          </>
        );
      },
    },
    ...(showUser ? [{ header: "User", cell: (c: Conversation) => whose(c) }] : []),
    { header: "Last active", cell: (c) => dateTime(c.last_finished_at) },
    { header: "Runs", numeric: true, cell: (c) => count(c.runs) },
    { header: "Last model", cell: (c) => c.last_model ?? "—" },
    { header: "Last status", cell: (c) => <Status value={c.last_status} /> },
    { header: "Input tokens", numeric: true, cell: (c) => count(c.input_tokens) },
    { header: "Output tokens", numeric: true, cell: (c) => count(c.output_tokens) },
  ];
  return (
    <>
      {list.items.length > 0 && (
        <DataTable
          caption="Recent conversations, most recently active first"
          label="Recent conversations"
          class="conversations"
          columns={columns}
          rows={list.items}
          rowKey={rowKey}
          detail={(c) =>
            open.has(rowKey(c))
              ? { id: runsId(c), content: <ConversationRuns api={api} conversation={c} showUser={showUser} /> }
              : undefined
          }
        />
      )}
      <LoadMore list={list} what="conversations" />
    </>
  );
}

/**
 * Conversation ids are per principal: the same id under another user is another conversation, so the
 * query names the user too. The API no longer knows a removed user (email null, not local) and would
 * answer not_found, so their runs are asked for by conversation id and the other users' dropped here.
 */
function ConversationRuns({ api, conversation, showUser }: { api: Api; conversation: Conversation; showUser: boolean }) {
  const conversationId = conversation.id;
  const removed = conversation.email === null && conversation.user_id !== "local";
  const userId = removed ? undefined : conversation.user_id;
  const read = useCallback<PageReader<Run>>(
    (page) =>
      answer(api.GET("/api/v1/runs", { params: { query: { ...page, conversation_id: conversationId, user_id: userId } } })).then((a) => ({
        items: a.runs,
        next_before: a.next_before,
      })),
    [api, conversationId, userId],
  );
  const runs = usePaged(read);
  const own = runs.items.filter((r) => r.user_id === conversation.user_id);
  return (
    <>
      {own.length > 0 && (
        <RunTable
          runs={own}
          caption={`Runs of conversation ${shortId(conversationId)}`}
          showUser={showUser}
          idPrefix={`c-${rowKey(conversation)}`}
        />
      )}
      <LoadMore list={runs} what="runs" />
    </>
  );
}
