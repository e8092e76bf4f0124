// One object per team: the keys behind its models, as every isolate of the deployment sees
// them (rules: src/hosting/keys/key-pool-host.ts). A pick runs without awaiting before its
// decision, so two picks cannot take the same turn of the spread.
import { DurableObject } from "cloudflare:workers";
import { KeyPoolHost } from "../hosting/keys/key-pool-host.ts";

export class KeyPoolObject extends DurableObject<Env> {
  readonly #host = new KeyPoolHost(this.ctx.storage.kv, this.env.DB);

  pick(...args: Parameters<KeyPoolHost["pick"]>): ReturnType<KeyPoolHost["pick"]> {
    return this.#host.pick(...args);
  }

  report(...args: Parameters<KeyPoolHost["report"]>): ReturnType<KeyPoolHost["report"]> {
    return this.#host.report(...args);
  }
}
