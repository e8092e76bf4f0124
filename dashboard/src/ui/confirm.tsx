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
  const dialogRef = useRef<HTMLDialogElement>(null);
  const openerRef = useRef<HTMLElement | null>(null);
  const ask = useCallback((next: ConfirmRequest) => {
    resolveRef.current?.(false);
    // Asked from a click or key handler: what has focus now is what opened it.
    openerRef.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setRequest(next);
    return new Promise<boolean>((resolve) => {
      resolveRef.current = resolve;
    });
  }, []);
  const done = useCallback((ok: boolean) => {
    // Closed and focus returned now, not when the dialog leaves the page after the next render:
    // until then the page behind a modal dialog is inert and cannot take focus.
    if (dialogRef.current?.open) dialogRef.current.close();
    const opener = openerRef.current;
    if (opener?.isConnected) opener.focus(); // a deleted row's button is gone; focus then stays on the page
    resolveRef.current?.(ok);
    resolveRef.current = null;
    setRequest(null);
  }, []);
  return [request ? <ConfirmDialog request={request} dialogRef={dialogRef} onDone={done} /> : null, ask];
}

interface ConfirmDialogProps {
  request: ConfirmRequest;
  dialogRef: { current: HTMLDialogElement | null };
  onDone: (ok: boolean) => void;
}

function ConfirmDialog({ request, dialogRef, onDone }: ConfirmDialogProps) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    dialog.showModal();
    cancelRef.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
    };
  }, [dialogRef]);
  return (
    <dialog
      ref={dialogRef}
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
