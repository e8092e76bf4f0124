// A list read page by page with `before` cursors (GET /runs, /conversations):
// the first page on mount or when the query changes, more on "Load more".
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Api } from "../api.ts";
import { errorText } from "../ui/notice.tsx";

export interface Paged<T> {
  items: T[];
  loading: boolean;
  error: string | undefined;
  hasMore: boolean;
  loadMore: () => void;
}

export function usePaged<T>(api: Api, path: string, field: string, query: Record<string, string | undefined>, limit = 25): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const generation = useRef(0);
  const queryKey = JSON.stringify(query);

  const load = useCallback(
    (before: string | null, replace: boolean) => {
      const gen = replace ? ++generation.current : generation.current;
      setLoading(true);
      setError(undefined);
      const q = { ...(JSON.parse(queryKey) as Record<string, string | undefined>), limit: String(limit), before: before ?? undefined };
      api.get<Record<string, unknown>>(path, q).then(
        (answer) => {
          if (gen !== generation.current) return;
          const page = (answer[field] ?? []) as T[];
          setItems((old) => (replace ? page : [...old, ...page]));
          setNext((answer.next_before as string | null | undefined) ?? null);
          setLoading(false);
        },
        (e: unknown) => {
          if (gen !== generation.current) return;
          setError(errorText(e));
          setLoading(false);
        },
      );
    },
    [api, path, field, queryKey, limit],
  );

  useEffect(() => load(null, true), [load]);
  return { items, loading, error, hasMore: next !== null, loadMore: () => load(next, false) };
}
