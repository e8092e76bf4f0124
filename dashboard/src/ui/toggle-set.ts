// Which rows of a table are open (a run's provider calls, a conversation's runs):
// a set of ids, and a toggle that opens a closed one and closes an open one.
import { useState } from "preact/hooks";

export function useToggleSet(initial: Iterable<string> = []): [open: ReadonlySet<string>, toggle: (id: string) => void] {
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set(initial));
  const toggle = (id: string) =>
    setOpen((old) => {
      const next = new Set(old);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return [open, toggle];
}
