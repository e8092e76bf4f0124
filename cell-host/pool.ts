// Cell processes started ahead of need, so that a cell does not wait for workerd to start.
import { CellProcess } from "./cell-process.ts";

export class ProcessPool {
  readonly #config: string;
  readonly #warm: number;
  readonly #ready: CellProcess[] = [];

  constructor(config: string, warm: number) {
    this.#config = config;
    this.#warm = warm;
    this.#refill();
  }

  /** A started process, for one cell; the caller kills it after. */
  take(): CellProcess {
    const process = this.#ready.shift() ?? this.#spawn();
    this.#refill();
    return process;
  }

  close(): void {
    for (const process of this.#ready.splice(0)) process.kill();
  }

  #refill(): void {
    while (this.#ready.length < this.#warm) this.#ready.push(this.#spawn());
  }

  #spawn(): CellProcess {
    const process = new CellProcess(this.#config);
    // A process that dies while waiting leaves the pool.
    void process.exited.then(() => {
      const at = this.#ready.indexOf(process);
      if (at >= 0) this.#ready.splice(at, 1);
    });
    return process;
  }
}
