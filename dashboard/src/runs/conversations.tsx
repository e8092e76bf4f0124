// Recent conversations, most recently active first; "Runs" on a row loads that
// conversation's runs (GET /runs?conversation_id=&user_id=) into the row below it.
import { useCallback } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import { formatNumber as count, formatDateTime as dateTime } from "../format.ts";
import { type PageReader, usePaged } from "./paged.ts";
import { RunTable, Status } from "./run-table.tsx";
import type { Conversation, Run } from "../types.ts";
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
  const columns = showUser ? 8 : 7;
  if (!list.loading && !list.error && list.items.length === 0) {
    return <p class="empty">No conversations yet. They appear here after their first run.</p>;
  }
  return (
    <>
      {list.items.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must be reachable by keyboard to scroll it
        <section class="table-wrap" aria-label="Recent conversations" tabIndex={0}>
          <table class="conversations">
            <caption>Recent conversations, most recently active first</caption>
            <thead>
              <tr>
                <th scope="col">Conversation</th>
                {showUser && <th scope="col">User</th>}
                <th scope="col">Last active</th>
                <th scope="col" class="num">
                  Runs
                </th>
                <th scope="col">Last model</th>
                <th scope="col">Last status</th>
                <th scope="col" class="num">
                  Input tokens
                </th>
                <th scope="col" class="num">
                  Output tokens
                </th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((c) => {
                const key = rowKey(c);
                const isOpen = open.has(key);
                const runsId = `conversation-${key}-runs`;
                return [
                  <tr key={key}>
                    <th scope="row">
                      <button
                        type="button"
                        class="link"
                        aria-expanded={isOpen}
                        aria-controls={isOpen ? runsId : undefined}
                        onClick={() => toggle(key)}
                      >
                        <span class="visually-hidden">{isOpen ? "Hide runs of" : "Show runs of"} conversation </span>
                        <code title={c.id}>{shortId(c.id)}</code>
                      </button>
                      <div class="sub">since {dateTime(c.started_at)}</div>
                    </th>
                    {showUser && <td>{whose(c)}</td>}
                    <td>{dateTime(c.last_finished_at)}</td>
                    <td class="num">{count(c.runs)}</td>
                    <td>{c.last_model ?? "—"}</td>
                    <td>
                      <Status value={c.last_status} />
                    </td>
                    <td class="num">{count(c.input_tokens)}</td>
                    <td class="num">{count(c.output_tokens)}</td>
                  </tr>,
                  isOpen && (
                    <tr key={`${key}-runs`} class="details">
                      <td colSpan={columns} id={runsId}>
                        <ConversationRuns api={api} conversation={c} showUser={showUser} />
                      </td>
                    </tr>
                  ),
                ];
              })}
            </tbody>
          </table>
        </section>
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
