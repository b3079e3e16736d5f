// The policy engine's layers that need no state store open for writing: the engine over the project's
// `[policy]` block, and the policy queries (check, show), whose SQLite ledger loads only when the store
// exists. Apart from ProjectContextLayer.ts so a command that reads no policy loads none of it.
import { FileSystem } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import * as EmptyLedger from "../services/Ledger/empty"
import { Ledger } from "../services/Ledger/Ledger"
import { openLedgerAt } from "../services/Ledger/openAt"
import { ModelAttributesSource } from "../services/PolicyEngine/attributes"
import * as PolicyEngine from "../services/PolicyEngine/PolicyEngine"
import { Principal } from "../services/Principal/Principal"
import { ProjectContext, resolveProject } from "../services/ProjectConfig/ProjectContext"
import { makeModelAttributes } from "../services/Project/policyAttributes"
import { type GlobalOptions, resolveRecorded } from "./ProjectContextLayer"

/** The policy engine's settings: the project's `[policy]` block and where its ledger is. */
const policySettings = (p: ProjectContext["Type"]): PolicyEngine.PolicySettings => {
  const config = Option.map(p.config, (l) => l.settings)
  return {
    configPresent: Option.isSome(p.config),
    policy: Option.flatMapNullable(config, (c) => c.policy).pipe(Option.getOrUndefined),
    mask: Option.flatMapNullable(config, (c) => c.mask).pipe(Option.getOrUndefined),
    classifications: Option.flatMapNullable(config, (c) => c.classifications).pipe(Option.getOrUndefined),
    ledger: { kind: "local", path: p.state.path },
    objectStoreUrl: Option.flatMapNullable(config, (c) => c.state?.object_store_url).pipe(Option.getOrUndefined)
  }
}

/** The policy engine over the project's `[policy]` block. */
export const policyLayer = Layer.unwrapEffect(Effect.map(ProjectContext, (p) => PolicyEngine.layer(policySettings(p))))

/**
 * The ledger alone, for reading: when the store does not exist yet (the case StateStore opens the
 * build's empty image for), the empty ledger, without loading SQLite; else the store's, opened for
 * reading (in the current scope), with the SQLite ledger and store loaded then.
 */
const readLedger = (state: ProjectContext["Type"]["state"]) =>
  Effect.gen(function* () {
    const stat = yield* Effect.option((yield* FileSystem.FileSystem).stat(state.path))
    if (Option.isNone(stat)) return EmptyLedger.emptyLedger
    return Context.get(yield* openLedgerAt(state, "read"), Ledger)
  })

/**
 * Policy queries that read only the ledger (check, show): the principal, the project, its ledger for
 * reading, the policy engine and model attributes, built in that order in one layer (as nested
 * layers they cost a start-up thousands of fiber steps for the same services).
 */
export const PolicyQueryLayer = (options: GlobalOptions) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const principal = yield* resolveRecorded(options)
      const project = yield* resolveProject(options, false)
      const ledger = yield* readLedger(project.state)
      const services = Context.make(Principal, principal).pipe(Context.add(ProjectContext, project), Context.add(Ledger, ledger))
      const engine = yield* PolicyEngine.make(policySettings(project)).pipe(Effect.provide(services))
      const attributes = yield* makeModelAttributes
      return services.pipe(Context.add(PolicyEngine.PolicyEngine, engine), Context.add(ModelAttributesSource, attributes))
    })
  )

