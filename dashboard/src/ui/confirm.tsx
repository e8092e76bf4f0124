// A confirmation in a native modal <dialog>: keyboard usable (Escape cancels, focus
// stays inside), focus starts on "Cancel" so Enter does not destroy by accident, and
// returns to what had it before. `useConfirm` gives the element and an ask() promise.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface ConfirmRequest {
  title: string;
  body: ComponentChildren;
  /** The confirming button's text, e.g. "Delete". */
  confirm: string;
}

export function useConfirm(): [ComponentChildren, (request: ConfirmRequest) => Promise<boolean>] {
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const resolveRef = useRef<((ok: boolean) => void) | null>(null);
  const ask = useCallback((next: ConfirmRequest) => {
    resolveRef.current?.(false);
    setRequest(next);
    return new Promise<boolean>((resolve) => {
      resolveRef.current = resolve;
    });
  }, []);
  const done = useCallback((ok: boolean) => {
    resolveRef.current?.(ok);
    resolveRef.current = null;
    setRequest(null);
  }, []);
  return [request ? <ConfirmDialog request={request} onDone={done} /> : null, ask];
}

function ConfirmDialog({ request, onDone }: { request: ConfirmRequest; onDone: (ok: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    cancelRef.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
      // Back to the button that opened it, when it is still in the page (a deleted row's is not).
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm"
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        onDone(false);
      }}
    >
      <h2 id="confirm-title">{request.title}</h2>
      <div class="confirm-body">{request.body}</div>
      <div class="actions">
        <button type="button" ref={cancelRef} onClick={() => onDone(false)}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => onDone(true)}>
          {request.confirm}
        </button>
      </div>
    </dialog>
  );
}
