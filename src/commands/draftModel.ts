import { FileSystem, Path } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { writeFileAtomic } from "../platform/atomicWrite"
import type { DraftModelOutput } from "../schemas/authoring"
import { Environment } from "../services/Environment/Environment"
import { Ledger } from "../services/Ledger/Ledger"
import { DraftNotAllowed, DraftWriteFailed } from "../services/Plans/errors"
import { attributesOf } from "../services/Plans/gate"
import { evaluationRow } from "../services/Plans/ledgerRows"
import type { ModelAttributes } from "../services/PolicyEngine/attributes"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import { Principal } from "../services/Principal/Principal"
import { downstreamClosure, loadAndCompile } from "../services/Project/compile"

export interface DraftModelInput {
  readonly modelsDir: string
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

    const attrs = yield* attributesFor(input.modelsDir, input.name)
    const outcome = yield* engine.gate(actor.class, "propose", [attrs])
    let decision: { readonly effect: "allow" | "require_review" | "deny"; readonly ref: string } | undefined
    if (outcome._tag === "Evaluated") {
      const verdict = outcome.verdicts[0]!
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
        return yield* new DraftNotAllowed({ model: input.name, effect: verdict.effect, rule: verdict.matched_rule, reason: verdict.reason })
      }
      decision = { effect: verdict.effect, ref: row.decision_ref }
    }

    const writes = [
      { path: path.join(input.modelsDir, `${input.name}.sql`), text: input.sql },
      ...(input.sidecar === undefined ? [] : [{ path: path.join(input.modelsDir, `${input.name}.toml`), text: input.sidecar }])
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
    const project = yield* loadAndCompile({ modelsDir: input.modelsDir, env }).pipe(Effect.tapError(() => restore))
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
