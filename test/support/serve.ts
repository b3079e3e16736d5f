import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { specText } from "../products/support"
import { makeProject, PCLI_BIN } from "./cli"
import { writeStoreAtVersion } from "./stateStore"

export interface Served {
  readonly url: string
  readonly stderr: () => string
  readonly stop: () => Promise<number | null>
}

/** Starts `pcli serve --port 0` (the built binary) and resolves once it prints where it listens. */
export const startServe = (cwd: string, args: ReadonlyArray<string> = [], env: Readonly<Record<string, string>> = {}) =>
  new Promise<Served>((resolvePromise, reject) => {
    const childEnv: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("PCLI_")) childEnv[k] = v
    const child: ChildProcess = spawn(process.execPath, [PCLI_BIN, "serve", "--port", "0", ...args], { cwd, env: { ...childEnv, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let started = false
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      stderr += d
      const m = /listening on (http:\/\/\S+)/.exec(stderr)
      if (m !== null && !started) {
        started = true
        resolvePromise({
          url: m[1]!,
          stderr: () => stderr,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done(child.exitCode)
              child.once("exit", (code) => done(code))
              child.kill("SIGTERM")
            })
        })
      }
    })
    child.stdout!.resume()
    child.once("exit", (code) => {
      if (!started) reject(new Error(`pcli serve exited ${code} before listening: ${stderr}`))
    })
  })

const sqlite = (path: string, sql: string) => execFileSync("sqlite3", [path, sql], { encoding: "utf8" })

const cols = "decision_ref, kind, timestamp, principal, principal_id, principal_id_source, capability, model, effect, rule_id, plan_id, reason"
const q = (v: string | number | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v}'`)
const row = (ts: string, kind: string, principal: string, id: string | null, model: string, effect: string | null, rule: number | null, plan: string | null) =>
  `INSERT INTO ledger (${cols}) VALUES (${[`${ts}|${plan ?? ""}|${model}`, kind, ts, principal, id, id === null ? null : "flag", "apply", model, effect, rule, plan, "seeded"].map(q).join(", ")});`

/**
 * A project with a policy, one product spec and a ledger of a few decisions (one within the last
 * day, so `since=7d` selects something), migrated to the current version by a read command.
 */
export const seededProject = async () => {
  const dir = makeProject({
    "pcli.toml": `[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n\n[[policy.rules]]\nprincipal = "agent"\ncapability = "apply"\neffect = "deny"\nscope = { models = ["orders"] }\n`,
    "models/.keep": "",
    "products/weekly.toml": specText({ name: "weekly", model: "orders" })
  })
  const store = join(dir, "models", ".pcli-state.sqlite")
  await Effect.runPromise(writeStoreAtVersion(store, 4))
  const recent = new Date(Date.now() - 3_600_000).toISOString()
  sqlite(
    store,
    [
      row("2026-01-01T10:00:00.000Z", "evaluation", "agent", "bot-1", "orders", "allow", 1, "p1"),
      row("2026-01-02T00:00:00.000Z", "evaluation", "human", null, "orders", "require_review", null, "p2"),
      row("2026-01-03T05:30:00.000Z", "escalation", "agent", "bot-1", "customers", "require_review", 2, "p3"),
      row("2026-01-04T00:00:00.000Z", "approval", "human", "alice", "orders", null, null, "p1"),
      row(recent, "evaluation", "agent", "bot-2", "orders", "deny", 0, "p4")
    ].join("\n")
  )
  // The first read command migrates the old store forward (and chains the rows); the server never writes.
  execFileSync(process.execPath, [PCLI_BIN, "state", "info"], { cwd: dir, stdio: "ignore" })
  return { dir, store }
}

/** Every file under `dir` (names, sizes and bytes) as one digest. */
export const treeDigest = (dir: string): string => {
  const hash = createHash("sha256")
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      const s = statSync(p)
      hash.update(`${p}\0${s.isDirectory() ? "d" : s.size}\0`)
      if (s.isDirectory()) walk(p)
      else hash.update(readFileSync(p))
    }
  }
  walk(dir)
  return hash.digest("hex")
}
