import { Data } from "effect"
import { CAPABILITIES } from "../../schemas/policy"

export class InvalidPrincipal extends Data.TaggedError("InvalidPrincipal")<{ readonly value: string }> {
  readonly code = "invalid-principal"
  override get message() {
    return `invalid --principal '${this.value}': expected human or agent`
  }
}

export class InvalidCapability extends Data.TaggedError("InvalidCapability")<{ readonly value: string }> {
  readonly code = "invalid-capability"
  override get message() {
    return `invalid --capability '${this.value}': expected one of ${CAPABILITIES.join(", ")}`
  }
}

export class NoMatchingFreeze extends Data.TaggedError("NoMatchingFreeze")<{
  readonly principal: string
  readonly scope: string
}> {
  readonly code = "no-matching-freeze"
  override get message() {
    return `no freeze in force for ${this.principal} on scope '${this.scope}' (unfreeze must name the exact scope of the freeze; see pcli policy show)`
  }
}

export class PolicyConfigMissing extends Data.TaggedError("PolicyConfigMissing")<{}> {
  readonly code = "policy-config-missing"
  override get message() {
    return "policy test needs a [policy] block, and there is no pcli.toml"
  }
}

export class PolicyNotConfigured extends Data.TaggedError("PolicyNotConfigured")<{}> {
  readonly code = "policy-not-configured"
  override get message() {
    return "nothing to test: pcli.toml has no [policy] block"
  }
}

export class PolicyNoScenarios extends Data.TaggedError("PolicyNoScenarios")<{}> {
  readonly code = "policy-no-scenarios"
  override get message() {
    return "nothing to assert: the [policy] block has no [[policy.tests]] scenarios"
  }
}

export class ScenarioLayerInconsistent extends Data.TaggedError("ScenarioLayerInconsistent")<{
  readonly name: string
  readonly layer: string
  readonly tagLayer: string
}> {
  readonly code = "policy-scenario-inconsistent"
  override get message() {
    return `policy test '${this.name}' is inconsistent: layer = "${this.layer}" but tags.layer = "${this.tagLayer}"`
  }
}

export class PolicyScenariosFailed extends Data.TaggedError("PolicyScenariosFailed")<{
  readonly failed: number
  readonly total: number
}> {
  readonly code = "policy-test-failed"
  override get message() {
    return `${this.failed} of ${this.total} policy scenario(s) failed`
  }
}

/** A freeze source that exists but cannot be read: `policy show` errors instead of listing nothing. */
export class FreezeSourceUnreadable extends Data.TaggedError("FreezeSourceUnreadable")<{
  readonly source: "ledger" | "markers"
  readonly location: string
  readonly detail: string
}> {
  readonly code = "freeze-source-unreadable"
  override get message() {
    return `cannot read the ${this.source} freeze source at ${this.location}: ${this.detail}`
  }
}

/** A freeze or unfreeze scope over the selector limit (decisions.md 31); nothing is read or written. */
export class SelectorTooLong extends Data.TaggedError("SelectorTooLong")<{
  readonly length: number
  readonly limit: number
}> {
  readonly code = "selector-too-long"
  override get message() {
    return `scope selector is ${this.length} characters; the limit is ${this.limit}`
  }
}

/** Only a human lifts a freeze (decisions.md 31); the refusal itself is a ledger row. */
export class UnfreezeNeedsHuman extends Data.TaggedError("UnfreezeNeedsHuman")<{
  readonly principal: string
  readonly scope: string
  readonly actor: string
  /** Why the refusal row could not be written, when it could not. */
  readonly unrecorded?: string | undefined
}> {
  readonly code = "unfreeze-needs-human"
  override get message() {
    const note = this.unrecorded === undefined ? "refusal recorded in the decision ledger" : `the refusal could not be recorded: ${this.unrecorded}`
    return `${this.actor} may not unfreeze ${this.principal} on scope '${this.scope}': only a human may lift a freeze (run it as PCLI_PRINCIPAL=human); ${note}`
  }
}
