// The Credentials page (placeholder until it is built; docs/dashboard.md).
import type { PageProps } from "../types.ts";

export function CredentialsPage(_props: PageProps) {
  return (
    <>
      <h1>Credentials</h1>
      <p>This page is not built yet.</p>
    </>
  );
}
