// A form that the API validates: while it is sent the form is busy; a 400's field
// messages go next to their fields (and focus moves to the first), anything else
// into one role=alert notice. `run` resolves true when the action succeeded.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { focusFirstInvalid } from "./field.tsx";
import { errorText } from "./notice.tsx";

export interface ApiForm {
  formRef: { current: HTMLFormElement | null };
  fields: Record<string, string>;
  alert: string | null;
  busy: boolean;
  /** Runs `action`; on a 409 its message goes to `conflictField` when given (e.g. a name that is taken). */
  run: (action: () => Promise<void>, conflictField?: string) => Promise<boolean>;
  /** A problem found before sending (e.g. JSON that does not parse), shown like the API's. */
  fail: (fields: Record<string, string>) => void;
  reset: () => void;
}

export function useApiForm(): ApiForm {
  const formRef = useRef<HTMLFormElement>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [alert, setAlert] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [focusRequest, setFocusRequest] = useState(0);
  useEffect(() => {
    if (focusRequest > 0) focusFirstInvalid(formRef.current);
  }, [focusRequest]);

  const fail = (next: Record<string, string>) => {
    setFields(next);
    const count = Object.keys(next).length;
    setAlert(`Check the ${count === 1 ? "field" : `${count} fields`} marked below.`);
    setFocusRequest((n) => n + 1);
  };

  const run = async (action: () => Promise<void>, conflictField?: string) => {
    setBusy(true);
    setAlert(null);
    try {
      await action();
      setFields({});
      return true;
    } catch (err) {
      const fieldsOfError =
        err instanceof ApiError && err.status === 409 && conflictField
          ? { [conflictField]: err.message }
          : err instanceof ApiError
            ? err.fields
            : {};
      if (Object.keys(fieldsOfError).length > 0) fail(fieldsOfError);
      else {
        setFields({});
        setAlert(errorText(err));
      }
      return false;
    } finally {
      setBusy(false);
    }
  };

  const reset = () => {
    setFields({});
    setAlert(null);
  };

  return { formRef, fields, alert, busy, run, fail, reset };
}
