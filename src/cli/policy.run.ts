// Loaded only when a `pcli policy` command runs: the policy engine stays off the start-up path.
import { Effect, Layer, Option } from "effect"
import { PolicyCheckOutput, PolicyFreezeOutput, PolicyShowOutput, PolicyTestOutput } from "../schemas/policy-output"
import {
  failOnScenarioFailures,
  policyCheck,
  policyFreeze,
  policyShow,
  policyTest,
  policyUnfreeze
} from "../services/PolicyEngine/commands"
import * as PolicyEngine from "../services/PolicyEngine/PolicyEngine"
import { checkText, freezeText, showText, testText } from "../services/PolicyEngine/text"
import { Principal } from "../services/Principal/Principal"
import { ProjectContext, stateLayer, withProject } from "./context"
import { modelAttributesLayer } from "./modelAttributes"
import type { CommonOptions } from "./options"
import { setExitCode } from "./exitCode"
import { emit, writeStderr } from "./render"

/** The policy engine over the project's `[policy]` block (needs ProjectContext and the state layers). */
const policyLayer = Layer.unwrapEffect(
  Effect.map(ProjectContext, (p) => {
    const config = Option.map(p.config, (l) => l.config)
    return PolicyEngine.layer({
      configPresent: Option.isSome(p.config),
      policy: Option.flatMapNullable(config, (c) => c.policy).pipe(Option.getOrUndefined),
      mask: Option.flatMapNullable(config, (c) => c.mask).pipe(Option.getOrUndefined),
      classifications: Option.flatMapNullable(config, (c) => c.classifications).pipe(Option.getOrUndefined),
      ledger: { kind: "local", path: p.statePath },
      objectStoreUrl: Option.flatMapNullable(config, (c) => c.state?.object_store_url).pipe(Option.getOrUndefined)
    })
  })
)

const readPolicy = policyLayer.pipe(Layer.provideMerge(stateLayer("read")))
const writePolicy = policyLayer.pipe(Layer.provideMerge(stateLayer("write")))

export interface CheckOptions extends CommonOptions {
  readonly principal: string
  readonly capability: string
  readonly model: string
}

export const runCheck = (opts: CheckOptions) =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const out = yield* policyCheck({ principal: opts.principal, capability: opts.capability, model: opts.model, modelsDir })
    yield* emit(opts.output, PolicyCheckOutput, out, checkText)
  }).pipe(withProject(opts, Layer.mergeAll(modelAttributesLayer, readPolicy)))

export const runTest = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const out = yield* policyTest
    yield* emit(opts.output, PolicyTestOutput, out, testText)
    // The report already says which scenarios failed: exit 1 with a one-line note, no second JSON document.
    yield* failOnScenarioFailures(out).pipe(
      Effect.catchTag("PolicyScenariosFailed", (e) => Effect.zipRight(writeStderr(`error[${e.code}]: ${e.message}\n`), setExitCode(1)))
    )
  }).pipe(withProject(opts, readPolicy))

export const runShow = (opts: CommonOptions) =>
  Effect.flatMap(policyShow, (out) => emit(opts.output, PolicyShowOutput, out, showText)).pipe(withProject(opts, readPolicy))

export interface FreezeOptions extends CommonOptions {
  readonly principal: Option.Option<string>
  readonly scope: Option.Option<string>
  readonly reason: Option.Option<string>
}

export const runFreeze = (name: "freeze" | "unfreeze", opts: FreezeOptions) =>
  Effect.gen(function* () {
    const actor = yield* Principal
    const input = {
      principal: Option.getOrUndefined(opts.principal),
      scope: Option.getOrUndefined(opts.scope),
      reason: Option.getOrUndefined(opts.reason)
    }
    const context = { class: actor.class, id: actor.id, idSource: actor.source }
    const out = yield* (name === "freeze" ? policyFreeze : policyUnfreeze)(input, context)
    for (const note of out.notes ?? []) yield* writeStderr(`warning: ${note}\n`)
    yield* emit(opts.output, PolicyFreezeOutput, out, freezeText)
  }).pipe(withProject(opts, writePolicy))
