// Notices: errors as role=alert (read at once), other news in a polite live region
// that is always in the page, so that a change of its text is announced.
import type { ComponentChildren } from "preact";

export function ErrorNotice({ children }: { children: ComponentChildren }) {
  if (children === null || children === undefined || children === false || children === "") return null;
  return (
    <div class="notice notice-error" role="alert">
      {children}
    </div>
  );
}

/** A polite live region; render it always and change what is in it. */
export function StatusNotice({ children }: { children?: ComponentChildren }) {
  const empty = children === null || children === undefined || children === false || children === "";
  return (
    <div class={empty ? "status-region" : "notice notice-status"} role="status" aria-live="polite">
      {children}
    </div>
  );
}

/** The message of anything thrown, for a notice. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
