import { Command, Options } from "@effect/cli"
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
import { checkText, freezeText, showText, testText } from "../services/PolicyEngine/text"
import { Principal } from "../services/Principal/Principal"
import { policyLayer, ProjectContext, stateLayer, withPrincipal, withProject } from "./context"
import { modelAttributesLayer } from "./modelAttributes"
import { commonOptions } from "./options"
import { emit, writeStderr } from "./render"

const readPolicy = policyLayer.pipe(Layer.provideMerge(stateLayer("read")))

// Principal and capability are plain strings so a bad value reaches the typed error (exit 1), not a parse error (exit 2).
const checkCommand = Command.make(
  "check",
  {
    ...commonOptions,
    principal: Options.text("principal").pipe(Options.withDescription("Acting principal: human or agent")),
    capability: Options.text("capability").pipe(Options.withDescription("Capability attempted, e.g. apply")),
    model: Options.text("model").pipe(Options.withDescription("Target model"))
  },
  (opts) =>
    Effect.gen(function* () {
      const { modelsDir } = yield* ProjectContext
      const out = yield* policyCheck({ principal: opts.principal, capability: opts.capability, model: opts.model, modelsDir })
      yield* emit(opts.output, PolicyCheckOutput, out, checkText)
    }).pipe(
      (body) => withPrincipal(opts, body),
      withProject(opts, Layer.mergeAll(modelAttributesLayer, readPolicy))
    )
).pipe(Command.withDescription("Read-only: explain the effect a rule resolves to (verdict, matched rule, reason)"))

const testCommand = Command.make("test", commonOptions, (opts) =>
  Effect.gen(function* () {
    const out = yield* policyTest
    yield* emit(opts.output, PolicyTestOutput, out, testText)
    yield* failOnScenarioFailures(out)
  }).pipe((body) => withPrincipal(opts, body), withProject(opts, readPolicy))
).pipe(Command.withDescription("Run [[policy.tests]] through the real evaluator; non-zero when any differs"))

const showCommand = Command.make("show", commonOptions, (opts) =>
  Effect.gen(function* () {
    yield* emit(opts.output, PolicyShowOutput, yield* policyShow, showText)
  }).pipe((body) => withPrincipal(opts, body), withProject(opts, readPolicy))
).pipe(Command.withDescription("Read-only: rules, default agent effect, freezes in force and their sources"))

const freezeOptions = {
  ...commonOptions,
  principal: Options.text("principal").pipe(Options.optional, Options.withDescription("human or agent (default: both)")),
  scope: Options.text("scope").pipe(Options.optional, Options.withDescription("Selector: any | layer=<n> | model=<glob> | classification=<v> | tag=<k>[=<v>]")),
  reason: Options.text("reason").pipe(Options.optional, Options.withDescription("Reason recorded on the ledger row"))
}

const freezeLike = (name: "freeze" | "unfreeze", description: string) =>
  Command.make(name, freezeOptions, (opts) =>
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
    }).pipe((body) => withPrincipal(opts, body), withProject(opts, policyLayer.pipe(Layer.provideMerge(stateLayer("write")))))
  ).pipe(Command.withDescription(description))

export const policyCommand = Command.make("policy").pipe(
  Command.withDescription("The policy plane: check, test, show, freeze, unfreeze"),
  Command.withSubcommands([
    checkCommand,
    testCommand,
    showCommand,
    freezeLike("freeze", "Record a freeze: forces deny for the principal and scope (no config file is rewritten)"),
    freezeLike("unfreeze", "Lift a freeze recorded with exactly this principal and scope")
  ])
)
