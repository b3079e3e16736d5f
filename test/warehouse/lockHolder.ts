import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"

const repoRoot = path.resolve(__dirname, "..", "..")

/** Another process holding a DuckDB file open (and so its lock) until killed. */
export const holdDuckDbFile = (file: string): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const script = `const { DuckDBInstance } = await import("@duckdb/node-api"); await DuckDBInstance.create(${JSON.stringify(file)}); process.stdout.write("ready\\n"); setInterval(() => {}, 1 << 30)`
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`lock holder exited early (${code})`)))
    child.stdout!.once("data", () => resolve(child))
  })

/** Resolves once the child has exited (at once if it already has). */
export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())
  )

/** Kills the holder and waits for it to go: its lock goes with it. */
export const release = (child: ChildProcess) => {
  child.kill("SIGKILL")
  return exited(child)
}
