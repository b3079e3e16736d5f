import { spawn } from "node:child_process"
import { cpSync, mkdtempSync, writeFileSync, mkdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

/** The built binary: tests exercise exactly what users run (`npm test` builds it first). */
export const PCLI_BIN = resolve(__dirname, "../../dist/pcli.cjs")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface CliOptions {
  readonly cwd: string
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly stdin?: string
  /** Kills the process (SIGKILL) after this long: a test of a hang fails instead of leaking it. */
  readonly timeoutMs?: number
  /** Another copy of the binary (a test that changes files beside it); PCLI_BIN by default. */
  readonly bin?: string
}

/** Environment with nothing of the developer's pcli settings leaking in. */
const baseEnv = () => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("PCLI_") && !k.startsWith("WAREHOUSE_")) env[k] = v
  }
  return env
}

export const runCli = (args: ReadonlyArray<string>, options: CliOptions): Promise<CliResult> =>
  new Promise((resolvePromise, reject) => {
    const env: Record<string, string> = baseEnv()
    for (const [k, v] of Object.entries(options.env ?? {})) {
      if (v === undefined) delete env[k]
      else env[k] = v
    }
    const child = spawn(process.execPath, [options.bin ?? PCLI_BIN, ...args], {
      cwd: options.cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: "SIGKILL" as const })
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolvePromise({ code: code ?? -1, stdout, stderr }))
    child.stdin.end(options.stdin ?? "")
  })

/** A fresh project directory with the given files (path → contents). */
export const makeProject = (files: Readonly<Record<string, string>> = {}) => {
  const dir = mkdtempSync(join(tmpdir(), "pcli-test-"))
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), contents)
  }
  return dir
}

/**
 * A fresh project directory holding a copy of `template` (a project the binary has already worked on):
 * a file's shared setup runs once. Faithful because pcli stores no absolute project path in its state
 * store, plans, markers or warehouse; its path-keyed caches (compile cache, catalog snapshot) just miss.
 */
export const copyProject = (template: string) => {
  const dir = mkdtempSync(join(tmpdir(), "pcli-test-"))
  cpSync(template, dir, { recursive: true })
  return dir
}
