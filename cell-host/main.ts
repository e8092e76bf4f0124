// `npm run cell-host [-- --port 8790 …]`: runs code-mode cells in processes it can stop, for a
// byok-edge on local or self-hosted workerd (docs/code-mode.md#cell-host). Point the worker's
// CODE_MODE_CELL_HOST at the URL it prints (`npm run dev` starts one itself).
import { startCellHost } from "./cell-host.ts";
import { parseOptions } from "./options.ts";

const options = parseOptions(process.argv.slice(2), process.env);
const host = await startCellHost(options);
console.log(`byok-edge cell host: ${host.url} (set CODE_MODE_CELL_HOST to it)`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void host.close().then(() => process.exit(0));
  });
}
