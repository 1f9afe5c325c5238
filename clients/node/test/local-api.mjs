// The API the tests call: FILEAPI_BASE_URL + FILEAPI_API_KEY when both are set, else `fileapi run`
// started here (the project's .venv, or FILEAPI_CLI) on a free port with its own state directory.

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const cli = process.env.FILEAPI_CLI ?? resolve(here, "../../../.venv/bin/fileapi");

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

async function healthy(baseUrl) {
  try {
    return (await fetch(`${baseUrl}/health`)).status === 200;
  } catch {
    return false;
  }
}

export async function startLocalApi() {
  if (process.env.FILEAPI_BASE_URL && process.env.FILEAPI_API_KEY) {
    return { baseUrl: process.env.FILEAPI_BASE_URL, apiKey: process.env.FILEAPI_API_KEY, createKey: null, stop() {} };
  }
  const port = await freePort();
  const env = {
    ...process.env,
    FILEAPI_STATE_DIR: mkdtempSync(join(tmpdir(), "fileapi-node-")),
    FILEAPI_PORT: String(port),
    FILEAPI_DEV_PLAN: "business",
  };
  delete env.FILEAPI_DEV_KEY;
  // Its own process group: stop() ends the runner and every process it started (the operations consumer too).
  const child = spawn(cli, ["run"], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  let apiKey = null;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`fileapi run exited: ${output.slice(-2000)}`);
    apiKey = /^API key: (\S+)$/m.exec(output)?.[1] ?? null;
    if (apiKey && (await healthy(baseUrl))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!apiKey) throw new Error(`fileapi run did not start: ${output.slice(-2000)}`);
  return {
    baseUrl,
    apiKey,
    createKey(plan, email) {
      const made = spawnSync(cli, ["keys", "create", "--email", email, "--plan", plan], { env, encoding: "utf8" });
      if (made.status !== 0) throw new Error(made.stderr);
      return made.stdout.trim();
    },
    async stop() {
      const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
      process.kill(-child.pid, "SIGTERM");
      const graceful = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(r, 10_000, false))]);
      try {
        process.kill(-child.pid, "SIGKILL"); // whatever of the group is left (a consumer that outlived its runner)
      } catch {
        // the whole group has exited
      }
      if (!graceful) await exited;
      child.stdout.destroy();
      child.stderr.destroy();
    },
  };
}
