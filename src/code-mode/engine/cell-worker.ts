// The worker inside each cell-host process (docs/code-mode.md#cell-host): it takes one
// WebSocket from the cell host and runs the cell on its own Worker Loader, exactly as a
// session object does in production. Bundled by cell-host/bundle.ts; never part of the
// main worker.
import { FrameReader, sendMessage, type RunnerMessage, type SessionMessage } from "./cell-wire.ts";
import { LoaderCellRunner } from "./loader-runner.ts";
import type { RunningCell, ToolReply } from "./runner.ts";

interface CellWorkerEnv {
  LOADER: WorkerLoader;
}

export default {
  fetch(request: Request, env: CellWorkerEnv): Response {
    if (request.headers.get("Upgrade") !== "websocket") return new Response("a cell runner: WebSocket only\n", { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    server.accept();
    serve(server, env.LOADER);
    return new Response(null, { status: 101, webSocket: client });
  },
};

function serve(socket: WebSocket, loader: WorkerLoader): void {
  const reader = new FrameReader<SessionMessage>();
  const replies = new Map<number, (reply: ToolReply) => void>();
  let nextId = 1;
  let running: RunningCell | undefined;
  const send = (message: RunnerMessage) => {
    sendMessage(socket, message);
  };
  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string") return;
    const message = reader.push(event.data);
    if (message === undefined) return;
    if (message.t === "start" && running === undefined) {
      running = new LoaderCellRunner(loader, message.cpuMs).start(message.launch, {
        started: () => send({ t: "started" }),
        events: (events) => send({ t: "events", events }),
        callTool: (index, inputJson) => {
          const id = nextId++;
          const reply = new Promise<ToolReply>((resolve) => replies.set(id, resolve));
          send({ t: "tool", id, index, inputJson });
          return reply;
        },
      });
      void running.result.then((result) => send({ t: "result", result }));
    } else if (message.t === "probe") {
      void new LoaderCellRunner(loader).syntaxError(message.source).then((text) => send({ t: "probe-result", text }));
    } else if (message.t === "tool-reply") {
      replies.get(message.id)?.(message.reply);
      replies.delete(message.id);
    } else if (message.t === "stop") {
      void running?.stop();
    }
  });
}
