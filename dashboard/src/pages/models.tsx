// The Models page (placeholder until it is built; docs/dashboard.md).
import type { PageProps } from "../types.ts";

export function ModelsPage(_props: PageProps) {
  return (
    <>
      <h1>Models</h1>
      <p>This page is not built yet.</p>
    </>
  );
}
