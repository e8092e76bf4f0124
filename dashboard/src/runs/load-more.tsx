// Below a paged list: what is loading, what failed (role=alert), and "Load more"
// while the API says there is more (next_before).
import { ErrorNotice, StatusNotice } from "../ui/notice.tsx";
import type { Paged } from "./paged.ts";

export function LoadMore({ list, what }: { list: Paged<unknown>; what: string }) {
  return (
    <div class="load-more">
      <StatusNotice>{list.loading ? `Loading ${what}…` : ""}</StatusNotice>
      <ErrorNotice>{list.error && `Could not load ${what}: ${list.error}`}</ErrorNotice>
      {list.hasMore && !list.loading && (
        <button type="button" onClick={list.loadMore}>
          Load more {what}
        </button>
      )}
    </div>
  );
}
