// `policy check` and `policy show`: read-only, run by the full bundle (through policy.run.ts) and by their light entries (src/light/).
import { Effect } from "effect"
import { policyCheck } from "../commands/policyCheck"
import { policyShow } from "../commands/policyShow"
import { PolicyQueryLayer } from "../layers/ProjectContextLayer"
import { checkText, showText } from "../render/text/policy"
import { PolicyCheckOutput, PolicyShowOutput } from "../schemas/policy-output"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { type CommonOptions, globalOptions } from "./globalOptions"
import { emit } from "./output"

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
  }).pipe(Effect.provide(PolicyQueryLayer(globalOptions(opts))))

export const runShow = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const out = yield* policyShow
    yield* emit(opts.output, PolicyShowOutput, out, (o) => `${showText(o).replace(/\n$/, "")}\nledger head: ${o.ledger_head_hash}`)
  }).pipe(Effect.provide(PolicyQueryLayer(globalOptions(opts))))
