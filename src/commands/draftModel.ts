import { FileSystem, Path } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { writeFileAtomic } from "../platform/atomicWrite"
import type { DraftModelOutput } from "../schemas/authoring"
import { Environment } from "../services/Environment/Environment"
import { Ledger } from "../services/Ledger/Ledger"
import { DraftNotAllowed, DraftWriteFailed } from "../services/Plans/errors"
import { evaluationRow } from "../services/Plans/ledgerRows"
import { asBuilt, attributesOf, type ModelAttributes } from "../services/PolicyEngine/attributes"
import { builtAttributes } from "../services/Plans/scopeChange"
import { decidedBy } from "../services/PolicyEngine/evaluate"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import { Principal } from "../services/Principal/Principal"
import { downstreamClosure, loadAndCompile } from "../services/Project/compile"
import { decodeModel } from "../services/Project/models"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

export interface DraftModelInput {
  /** Already checked against the model-name grammar by the surface. */
  readonly name: string
  readonly sql: string
  /** The sidecar TOML; omitted keeps the existing sidecar. */
  readonly sidecar?: string | undefined
}

/** The current project's view of the model, or just its name when it is new (or the project does not compile). */
const attributesFor = (modelsDir: string, name: string) =>
  Effect.gen(function* () {
    const env = yield* Environment
    const project = yield* Effect.either(loadAndCompile({ modelsDir, env }))
    const m = Either.isRight(project) ? project.right.models.get(name) : undefined
    return m === undefined ? ({ name, tags: {}, classifications: [], contracted: false, reachableDownstreams: undefined } satisfies ModelAttributes) : attributesOf(m)
  })

/**
 * The model as the draft would make it: the proposed sidecar's tags, layer and classifications over
 * the current view. A sidecar that does not decode gives nothing here: the compile after writing fails
 * and puts the files back.
 */
const proposedAttributes = (input: DraftModelInput, current: ModelAttributes, sidecarPath: string) =>
  input.sidecar === undefined
    ? Effect.succeed(Option.none<ModelAttributes>())
    : Effect.flatMap(Environment, (env) =>
        decodeModel({ name: input.name, sql: input.sql, sqlPath: `${input.name}.sql`, sidecarText: input.sidecar!, sidecarPath, contractText: undefined, contractPath: undefined, env }).pipe(
          Effect.map((def) =>
            Option.some<ModelAttributes>({
              ...current,
              tags: def.sidecar.tags,
              classifications: [...new Set(Object.values(def.sidecar.classification))],
              layer: def.sidecar.tags["layer"]
            })
          ),
          Effect.orElseSucceed(() => Option.none<ModelAttributes>())
        )
      )

const RESTRICTIVENESS = { allow: 0, require_review: 1, deny: 2 } as const

/** Of the verdicts on the model as it is and as drafted, the most restrictive (the first on a tie). */
const strictest = <V extends { readonly effect: keyof typeof RESTRICTIVENESS }>(verdicts: ReadonlyArray<V>): V =>
  verdicts.reduce((worst, v) => (RESTRICTIVENESS[v.effect] > RESTRICTIVENESS[worst.effect] ? v : worst))

/**
 * MCP `draft_model` (decisions.md 32): checked against `propose` on the model for the acting
 * principal; only `allow` (or no `[policy]` block) writes. Then the project is compiled, and a
 * compile failure puts the previous files back byte for byte before the error is returned.
 */
export const draftModel = (input: DraftModelInput) =>
  Effect.gen(function* () {
    const actor = yield* Principal
    const engine = yield* PolicyEngine
    const ledger = yield* Ledger
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const env = yield* Environment
    const { modelsDir } = yield* ProjectContext

    const attrs = yield* attributesFor(modelsDir, input.name)
    // A draft can change the tags policy scopes on: both the model as it is and as drafted must pass.
    const drafted = yield* proposedAttributes(input, attrs, path.join(modelsDir, `${input.name}.toml`))
    // And as it was last built (decisions.md 33): files edited behind pcli's back do not move it out of scope.
    const recorded = engine.configured ? (yield* builtAttributes).get(input.name) : undefined
    const built = recorded === undefined ? [] : [asBuilt(attrs, recorded)]
    const subjects = [...Option.match(drafted, { onNone: () => [attrs], onSome: (d) => [attrs, d] }), ...built]
    const outcome = yield* engine.gate(actor.class, "propose", subjects)
    let decision: { readonly effect: "allow" | "require_review" | "deny"; readonly ref: string } | undefined
    if (outcome._tag === "Evaluated") {
      const worst = strictest(outcome.verdicts)
      const verdict = built.length > 0 && worst === outcome.verdicts[outcome.verdicts.length - 1] ? { ...worst, reason: `as last built: ${worst.reason}` } : worst
      const row = yield* ledger.append(
        evaluationRow({
          actor,
          principal: actor.class,
          model: input.name,
          capability: "propose",
          effect: verdict.effect,
          ruleId: verdict.static.matched_rule,
          planId: null,
          reason: `${verdict.reason}; draft_model ${verdict.effect === "allow" ? "writes the files" : "writes nothing"}`
        })
      )
      if (verdict.effect !== "allow") {
        return yield* new DraftNotAllowed({ model: input.name, effect: verdict.effect, rule: verdict.matched_rule, reason: verdict.reason, decidedBy: decidedBy(verdict) })
      }
      decision = { effect: verdict.effect, ref: row.decision_ref }
    }

    const writes = [
      { path: path.join(modelsDir, `${input.name}.sql`), text: input.sql },
      ...(input.sidecar === undefined ? [] : [{ path: path.join(modelsDir, `${input.name}.toml`), text: input.sidecar }])
    ]
    const ioError = (target: string) => (e: { readonly message: string }) => new DraftWriteFailed({ path: target, detail: e.message })
    const previous = yield* Effect.forEach(writes, (w) =>
      fs.readFile(w.path).pipe(
        Effect.map(Option.some),
        Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "NotFound", () => Effect.succeed(Option.none<Uint8Array>())),
        Effect.mapError(ioError(w.path))
      )
    )
    const restore = Effect.forEach(writes, (w, i) =>
      Option.match(previous[i]!, {
        onNone: () => fs.remove(w.path).pipe(Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "NotFound", () => Effect.void)),
        onSome: (bytes) => writeFileAtomic(w.path, bytes)
      }).pipe(Effect.mapError(ioError(w.path)))
    )
    yield* Effect.forEach(writes, (w) => writeFileAtomic(w.path, w.text).pipe(Effect.mapError(ioError(w.path)))).pipe(
      Effect.tapError(() => restore)
    )
    const project = yield* loadAndCompile({ modelsDir: modelsDir, env }).pipe(Effect.tapError(() => restore))
    const downstream = new Set(downstreamClosure(project, input.name))
    return {
      command: "draft_model",
      model: input.name,
      files: writes.map((w) => w.path),
      policy: decision === undefined ? "not_configured" : "evaluated",
      effect: decision?.effect ?? null,
      decision_ref: decision?.ref ?? null,
      model_count: project.models.size,
      downstream_closure: project.order.filter((n) => downstream.has(n))
    } satisfies DraftModelOutput
  })
