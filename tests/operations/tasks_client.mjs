// The TypeScript SDK's client speaking MCP Tasks (2025-11-25) to a server of the
// background package: argv[2] is a JSON object with `sdk` (the SDK's directory),
// `pidfile` (where the slow tool writes its process's pid) and either `url`
// (Streamable HTTP) or `command`, `args`, `cwd` and `env` (stdio). Prints one
// JSON report of what the client saw.
import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";

const config = JSON.parse(process.argv[2]);
const load = (path) => import(pathToFileURL(`${config.sdk}/dist/esm/${path}`).href);
const { Client } = await load("client/index.js");

async function transport() {
  if (config.url) {
    const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
    return new StreamableHTTPClientTransport(new URL(config.url));
  }
  const { StdioClientTransport } = await load("client/stdio.js");
  const { command, args, cwd, env } = config;
  return new StdioClientTransport({ command, args, cwd, env, stderr: "ignore" });
}

async function streamed(client, name, args, onCreated) {
  const seen = [];
  let result = null;
  let error = null;
  for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args })) {
    seen.push(message.type === "taskStatus" ? `status:${message.task.status}` : message.type);
    if (message.type === "taskCreated") await onCreated?.(message.task);
    if (message.type === "result") result = message.result;
    if (message.type === "error") error = message.error.message;
  }
  return { seen, result, error };
}

async function until(condition) {
  for (let i = 0; i < 400 && !condition(); i++) await sleep(25);
}

const client = new Client({ name: "tasks-client", version: "1.0.0" });
await client.connect(await transport());
try {
  const report = { capabilities: client.getServerCapabilities().tasks ?? null };
  const { tools } = await client.listTools();
  report.taskSupport = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport ?? null]));

  const done = await streamed(client, "slow", { pidfile: `${config.pidfile}.done`, seconds: "0.2" });
  report.done = { seen: [...new Set(done.seen)], text: done.result?.content?.[0]?.text, error: done.error };
  report.doneMeta = done.result?._meta?.["io.modelcontextprotocol/related-task"] ?? null;

  let created = null;
  const cancelled = await streamed(client, "slow", { pidfile: config.pidfile, seconds: "60" }, async (task) => {
    created = task;
    await until(() => existsSync(config.pidfile) && readFileSync(config.pidfile, "utf8").trim());
    report.pid = Number(readFileSync(config.pidfile, "utf8").trim());
    process.kill(report.pid, 0); // alive, or this throws
    report.cancel = await client.experimental.tasks.cancelTask(task.taskId);
  });
  report.created = created;
  report.cancelled = { seen: [...new Set(cancelled.seen)], error: cancelled.error };
  report.afterCancel = (await client.experimental.tasks.getTask(created.taskId)).status;
  report.listed = (await client.experimental.tasks.listTasks()).tasks.map((t) => [t.taskId, t.status]);
  try {
    await client.experimental.tasks.getTask("op_unknown");
    report.unknown = "found";
  } catch (error) {
    report.unknown = error.code;
  }
  const plain = await client.callTool({ name: "quick", arguments: {} });
  report.plainCall = plain.content?.[0]?.text ?? null;
  process.stdout.write(JSON.stringify(report));
} finally {
  await client.close();
}
