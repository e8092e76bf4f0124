// The Tokens page (placeholder until it is built; docs/dashboard.md).
import type { PageProps } from "../types.ts";

export function TokensPage(_props: PageProps) {
  return (
    <>
      <h1>Tokens</h1>
      <p>This page is not built yet.</p>
    </>
  );
}
