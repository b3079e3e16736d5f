import type { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import type { ModelFiles, Plan } from "../../schemas/plans"
import { hashCanonical } from "../Artifacts/artifacts"
import { type ModelFileMismatch, type ModelOutsideProject, ModelsUnreadable } from "../Project/errors"
import { listModels } from "../Project/modelListing"

/** A model's content fingerprint: hex BLAKE3 of its SQL, sidecar and contract texts. */
export const fingerprintOf = (files: ModelFiles): string =>
  hashCanonical({ sql: files.sql, sidecar: files.sidecar, contract: files.contract })

/** Model name → its files, for one revision of a models directory. */
export type Revision = ReadonlyMap<string, ModelFiles>

// Synchronous like the model loader: many small local files (see Project/models.ts).
const readText = (path: string): Effect.Effect<string, ModelsUnreadable> =>
  Effect.try({
    try: () => NodeFs.readFileSync(path, "utf8"),
    catch: (e) => new ModelsUnreadable({ path, detail: e instanceof Error ? e.message : String(e) })
  })

/** The working tree's model files (every model, or only `only` when given). */
export const readWorkingTree = (
  modelsDir: string,
  only?: ReadonlySet<string>
): Effect.Effect<Revision, ModelsUnreadable | ModelFileMismatch | ModelOutsideProject, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const listing = yield* listModels({ modelsDir, env: {} })
    const out = new Map<string, ModelFiles>()
    for (let i = 0; i < listing.names.length; i++) {
      const name = listing.names[i]!
      if (only !== undefined && !only.has(name)) continue
      const contractPath = listing.contractPaths[i]
      out.set(name, {
        sql: yield* readText(listing.sqlPaths[i]!),
        sidecar: yield* readText(listing.sidecarPaths[i]!),
        contract: contractPath === undefined ? null : yield* readText(contractPath)
      })
    }
    return out as Revision
  })

/** Groups `<name>.sql`, `<name>.toml`, `<name>.contract.toml` texts into models (a lone file is ignored). */
export const groupModelFiles = (files: ReadonlyMap<string, string>): Revision => {
  const out = new Map<string, ModelFiles>()
  for (const [file, sql] of files) {
    if (!file.endsWith(".sql")) continue
    const name = file.slice(0, -4)
    const sidecar = files.get(`${name}.toml`)
    if (sidecar === undefined) continue
    out.set(name, { sql, sidecar, contract: files.get(`${name}.contract.toml`) ?? null })
  }
  return out
}

/** Models whose fingerprint now differs from `expected` (null = must be absent). */
export const staleModels = (
  expected: Readonly<Record<string, string | null>>,
  current: Revision
): ReadonlyArray<string> =>
  Object.keys(expected)
    .sort()
    .filter((model) => {
      const files = current.get(model)
      const now = files === undefined ? null : fingerprintOf(files)
      return now !== expected[model]
    })

/** Fingerprinted models whose files changed since planning (a plan without fingerprints is never stale). */
export const staleOf = (plan: Plan, modelsDir: string) =>
  Effect.gen(function* () {
    const fingerprints = plan.payload.fingerprints
    if (fingerprints === undefined || Object.keys(fingerprints).length === 0) return []
    const current = yield* readWorkingTree(modelsDir, new Set(Object.keys(fingerprints)))
    return staleModels(fingerprints, current)
  })
