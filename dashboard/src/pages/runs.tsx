// The Runs page (placeholder until it is built; docs/dashboard.md).
import type { PageProps } from "../types.ts";

export function RunsPage(_props: PageProps) {
  return (
    <>
      <h1>Runs</h1>
      <p>This page is not built yet.</p>
    </>
  );
}
