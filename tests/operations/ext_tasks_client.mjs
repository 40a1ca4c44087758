// The official Tasks client (@modelcontextprotocol/ext-tasks over the TypeScript
// SDK 2.x `Client`) speaking the 2026-07-28 Tasks extension to a server of the
// background package over Streamable HTTP. argv[2] is a JSON object with `modules`
// (the node_modules directory holding both packages), `url` and `pidfile` (where
// the slow tool writes its process's pid). Prints one JSON report.
//
// ext-tasks 0.2.2 sends the extension's requests through a `rawDispatch` the host
// gives it (the SDK's codecs reject that traffic): here one POST per request.
import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";

const config = JSON.parse(process.argv[2]);
const load = (path) => import(pathToFileURL(`${config.modules}/@modelcontextprotocol/${path}`).href);
const { Client, StreamableHTTPClientTransport } = await load("client/dist/index.mjs");
const { createTaskSessionFromClient, resultFromTaskOutcome } = await load("ext-tasks/dist/client/index.js");

const VERSION = "2026-07-28";
const EXTENSION = "io.modelcontextprotocol/tasks";
let nextId = 1000;

async function rawDispatch(request, options) {
  const message = { jsonrpc: "2.0", ...request, id: request.id ?? nextId++ };
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": VERSION,
    "Mcp-Method": message.method,
  };
  const name = message.params?.taskId ?? message.params?.name;
  if (name !== undefined) headers["Mcp-Name"] = String(name);
  const answer = await fetch(config.url, {
    method: "POST",
    headers,
    body: JSON.stringify(message),
    signal: options?.signal,
  });
  const body = await answer.json();
  return "error" in body ? { kind: "error", error: body.error } : { kind: "result", result: body.result };
}

const client = new Client({ name: "ext-tasks-client", version: "1.0.0" }, { versionNegotiation: { mode: { pin: VERSION } } });
await client.connect(new StreamableHTTPClientTransport(new URL(config.url)));
const session = createTaskSessionFromClient(client, {
  endpointId: "mcigen-test",
  rawDispatch,
  v2RequestFraming: {
    protocolVersion: VERSION,
    clientInfo: { name: "ext-tasks-client", version: "1.0.0" },
    clientCapabilities: { extensions: { [EXTENSION]: {} } },
  },
});
try {
  const report = { era: client.getProtocolEra(), extensions: client.getServerCapabilities().extensions ?? null };

  const done = await session.callTool("slow", { pidfile: `${config.pidfile}.done`, seconds: "0" });
  report.doneKind = done.kind;
  const { outcome } = await done.settle();
  report.doneStatus = outcome.status;
  report.doneText = resultFromTaskOutcome(outcome).content?.[0]?.text ?? null;

  const running = await session.callTool("slow", { pidfile: config.pidfile, seconds: "60" });
  report.runningKind = running.kind;
  for (let i = 0; i < 400 && !(existsSync(config.pidfile) && readFileSync(config.pidfile, "utf8").trim()); i++) {
    await sleep(25);
  }
  report.pid = Number(readFileSync(config.pidfile, "utf8").trim());
  process.kill(report.pid, 0); // alive, or this throws
  await running.cancel();
  report.cancelledStatus = (await running.settle()).outcome.status;
  process.stdout.write(JSON.stringify(report));
} finally {
  await session.close();
  await client.close();
}
