// A list read page by page with `before` cursors (GET /runs, /conversations):
// the first page on mount or when the reader changes, more on "Load more".
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "../ui/notice.tsx";

export interface Paged<T> {
  items: T[];
  loading: boolean;
  error: string | undefined;
  hasMore: boolean;
  loadMore: () => void;
}

/** One page of a list and the cursor of the next (null on the last page). */
interface Page<T> {
  items: T[];
  next_before: string | null;
}

/**
 * Reads a page: the first without `before`, each next one with the previous page's next_before.
 * A new reader (its own useCallback's dependencies changed) starts the list again.
 */
export type PageReader<T> = (page: { limit: number; before?: string }) => Promise<Page<T>>;

export function usePaged<T>(read: PageReader<T>, limit = 25): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const generation = useRef(0);

  const load = useCallback(
    (before: string | null, replace: boolean) => {
      const gen = replace ? ++generation.current : generation.current;
      setLoading(true);
      setError(undefined);
      read({ limit, before: before ?? undefined }).then(
        (page) => {
          if (gen !== generation.current) return;
          setItems((old) => (replace ? page.items : [...old, ...page.items]));
          setNext(page.next_before);
          setLoading(false);
        },
        (e: unknown) => {
          if (gen !== generation.current) return;
          setError(errorText(e));
          setLoading(false);
        },
      );
    },
    [read, limit],
  );

  useEffect(() => load(null, true), [load]);
  return { items, loading, error, hasMore: next !== null, loadMore: () => load(next, false) };
}
