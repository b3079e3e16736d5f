// `policy check` and `policy show`: read-only, run by the full bundle (through policy.run.ts) and by their light entries (src/light/).
import { Effect } from "effect"
import { policyCheck } from "../commands/policyCheck"
import { policyShow } from "../commands/policyShow"
import { policyCheckLayer, policyShowLayer } from "../layers/lightCommandLayers"
import { checkText, showText } from "../render/text/policy"
import { PolicyCheckOutput, PolicyShowOutput } from "../schemas/policy-output"
import { type CommonOptions, globalOptions } from "./globalOptions"
import { emit } from "./output"

export interface CheckOptions extends CommonOptions {
  readonly principal: string
  readonly capability: string
  readonly model: string
}

export const runCheck = (opts: CheckOptions) =>
  Effect.gen(function* () {
    const out = yield* policyCheck({ principal: opts.principal, capability: opts.capability, model: opts.model })
    yield* emit(opts.output, PolicyCheckOutput, out, checkText)
  }).pipe(Effect.provide(policyCheckLayer(globalOptions(opts))))

export const runShow = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const out = yield* policyShow
    yield* emit(opts.output, PolicyShowOutput, out, (o) => `${showText(o).replace(/\n$/, "")}\nledger head: ${o.ledger_head_hash}`)
  }).pipe(Effect.provide(policyShowLayer(globalOptions(opts))))
