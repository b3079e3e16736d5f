// Loaded only when a `pcli policy` command runs: the policy engine stays off the start-up path.
import { Effect, Option } from "effect"
import { policyReplay } from "../commands/policyReplay"
import { policyReplayText } from "../render/text/policyReplay"
import { PolicyReplayOutput } from "../schemas/policyReplay"
import * as commandLayer from "../layers/commandLayers"
import { sanitize } from "../platform/echo"
import { ReportedFailure } from "../render/errors"
import { PolicyFreezeOutput, PolicyTestOutput } from "../schemas/policy-output"
import { policyFreeze } from "../commands/policyFreeze"
import { failOnScenarioFailures, policyTest } from "../commands/policyTest"
import { policyUnfreeze } from "../commands/policyUnfreeze"
import { freezeText, testText } from "../render/text/policy"
import { type CommonOptions, globalOptions } from "./globalOptions"
import { emit, writeStderr } from "./output"

// Read-only check and show live apart, so the light entry for them (src/light/) loads nothing else.
export { type CheckOptions, runCheck, runShow } from "./policyRead.run"

export const runTest = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const out = yield* policyTest
    yield* emit(opts.output, PolicyTestOutput, out, testText)
    // The report already says which scenarios failed: exit 1 with a one-line note, no second JSON document.
    yield* failOnScenarioFailures(out).pipe(Effect.mapError((e) => new ReportedFailure({ code: e.code, detail: e.message })))
  }).pipe(Effect.provide(commandLayer.policyTest(globalOptions(opts))))

export interface FreezeOptions extends CommonOptions {
  readonly principal: Option.Option<string>
  readonly scope: Option.Option<string>
  readonly reason: Option.Option<string>
}

export const runFreeze = (name: "freeze" | "unfreeze", opts: FreezeOptions) =>
  Effect.gen(function* () {
    const input = {
      principal: Option.getOrUndefined(opts.principal),
      scope: Option.getOrUndefined(opts.scope),
      reason: Option.getOrUndefined(opts.reason)
    }
    const out = yield* (name === "freeze" ? policyFreeze : policyUnfreeze)(input)
    for (const note of out.notes ?? []) yield* writeStderr(`warning: ${sanitize(note)}\n`)
    yield* emit(opts.output, PolicyFreezeOutput, out, freezeText)
  }).pipe(Effect.provide(commandLayer.policyFreeze(globalOptions(opts))))

export interface ReplayOptions extends Omit<CommonOptions, "config"> {
  readonly proposed: string
  readonly since: Option.Option<string>
  readonly failOnLoosen: boolean
}

export const runReplay = (opts: ReplayOptions) =>
  Effect.gen(function* () {
    const out = yield* policyReplay({ proposedConfig: opts.proposed, since: Option.getOrUndefined(opts.since) })
    yield* emit(opts.output, PolicyReplayOutput, out, policyReplayText)
    if (opts.failOnLoosen && out.loosened > 0) {
      return yield* new ReportedFailure({ code: "policy-replay-loosens", detail: `${out.loosened} recorded decision(s) would loosen under ${out.proposed_config}` })
    }
  }).pipe(Effect.provide(commandLayer.policyReplay(globalOptions({ ...opts, config: Option.none() }))))
