import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { chmodSync, chownSync, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs"
import { dirname, join } from "node:path"
import { Environment } from "../../src/services/Environment/Environment"
import type { ProductProject } from "../../src/services/Products/files"
import { spawn } from "node:child_process"
import { makeProject, PCLI_BIN, runCli, type CliResult } from "../support/cli"

export interface SpecOptions {
  readonly name?: string
  readonly model?: string | null
  readonly grain?: ReadonlyArray<string>
  readonly classifications?: string
  readonly freshness?: string
  readonly checks?: string
}

/** A valid spec; options swap single parts. */
export const specText = (o: SpecOptions = {}) => {
  const name = o.name ?? "orders_weekly"
  const model = o.model === undefined ? `model = "orders_weekly_mart"\n` : o.model === null ? "" : `model = ${JSON.stringify(o.model)}\n`
  return `spec_version = 0
[product]
name = "${name}"
intent = "Weekly order count and net value per store"
[product.source]
tables = ["shop.raw.orders", "shop.raw.stores"]
[product.output]
${model}grain = ${JSON.stringify(o.grain ?? ["store_id", "week_start"])}
columns = [
  { name = "store_id",   type = "Int32",         nullable = false },
  { name = "week_start", type = "Date",          nullable = false },
  { name = "net_value",  type = "Decimal(12,2)", nullable = true  },
  { name = "orders",     type = "Int64",         nullable = false },
]
checks = ${o.checks ?? `["orders >= 0"]`}
freshness = ${o.freshness ?? `{ max_lag = "8d", time_column = "week_start", severity = "warning" }`}
classifications = ${o.classifications ?? `{ store_id = "internal" }`}
[product.trust]
agent = "propose_only"
`
}

/** The policy a product needs: an exact-scope propose allow and an apply review for `model`. */
export const policyFor = (model: string, extra = "") => `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "allow"
scope = { models = ["${model}"] }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "require_review"
scope = { models = ["${model}"] }
${extra}
[mask]
internal = "none"
`

/** A worker's drafted sidecar for the output model. */
export const draftedSidecar = `# drafted by the worker
name = "orders_weekly_mart"
intent = "Orders per store and week, as the worker wrote it"

[target]
catalog = "shop"
schema = "mart"
table = "orders_weekly"

[tags]
layer = "mart"

[[tests]]
type = "row_count_range"
min = 1
`

/** A project whose product verifies: pcli.toml with the right policy and one spec. */
export const productProject = (files: Readonly<Record<string, string>> = {}) =>
  makeProject({ "pcli.toml": policyFor("orders_weekly_mart"), "products/orders_weekly.toml": specText(), ...files })

export const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent" }

export const pcli = (cwd: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}): Promise<CliResult> =>
  runCli(args, { cwd, env: { ...GIT_ENV, ...env } })

export const json = (r: CliResult) => JSON.parse(r.stdout) as Record<string, unknown>

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex")

/** Every entry under `dir` (recursively, not following links): kind, mode, size and content hash. */
export const snapshotTree = (dir: string, ignore: (rel: string) => boolean = () => false): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel)).sort()) {
      const r = rel === "" ? entry : `${rel}/${entry}`
      if (ignore(r)) continue
      const st = lstatSync(join(dir, r))
      if (st.isSymbolicLink()) out[r] = `link:${readlinkSync(join(dir, r))}`
      else if (st.isDirectory()) {
        out[r] = `dir:${(st.mode & 0o777).toString(8)}`
        walk(r)
      } else {
        // SQLite's read-only open touches the shared-memory index's mtime (never its bytes).
        const mtime = r.endsWith(".sqlite-shm") ? "" : st.mtimeMs
        out[r] = `file:${(st.mode & 0o777).toString(8)}:${mtime}:${sha(readFileSync(join(dir, r)))}`
      }
    }
  }
  walk("")
  return out
}

/** Files of the generation a lowering leaves (contract, sidecar, manifest, every .ff-* sibling and journal). */
export const generationFiles = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const sub of ["models", ".pcli/fulfillment/orders_weekly"]) {
    let entries: Array<string> = []
    try {
      entries = readdirSync(join(dir, sub)).sort()
    } catch {
      continue
    }
    for (const e of entries) {
      if (e.startsWith(".pcli-state") || e.startsWith("approved-")) continue
      out[`${sub}/${e}`] = sha(readFileSync(join(dir, sub, e)))
    }
  }
  return out
}

/**
 * Makes `dir` owned by an unprivileged user and returns a runner for the binary as that user when
 * the tests run as root (root reads a chmod 000 file; nobody does not). Otherwise the plain runner.
 */
export const unprivileged = (dir: string) => {
  if (process.getuid?.() !== 0) return (args: ReadonlyArray<string>) => pcli(dir, args)
  const chownTree = (p: string) => {
    chownSync(p, 65534, 65534)
    if (lstatSync(p).isDirectory() && !lstatSync(p).isSymbolicLink()) for (const e of readdirSync(p)) chownTree(join(p, e))
  }
  chownTree(dir)
  // The suite's private temp root is 0700: let the unprivileged user traverse (not list) it.
  chmodSync(dirname(dir), lstatSync(dirname(dir)).mode & 0o777 | 0o011)
  return (args: ReadonlyArray<string>) =>
    new Promise<CliResult>((resolve, reject) => {
      const env: Record<string, string> = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...GIT_ENV }
      const child = spawn(process.execPath, [PCLI_BIN, ...args], { cwd: dir, env, uid: 65534, gid: 65534, stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
      child.on("error", reject)
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }))
    })
}

export const project = (root: string, modelsRel = "models"): ProductProject => ({ root, modelsRel })

/** Node's platform services and an empty environment, for in-process service calls. */
export const platform = Layer.merge(NodeContext.layer, Layer.succeed(Environment, {}))

export const run = <A, E>(effect: Effect.Effect<A, E, NodeContext.NodeContext | Environment>) =>
  Effect.runPromise(Effect.either(Effect.provide(effect, platform)))
