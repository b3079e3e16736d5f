import { Context, Data, Effect, Option } from "effect"
import { Environment } from "../Environment/Environment"
import type { PrincipalClass, PrincipalIdSource } from "../Ledger/Ledger"

/** Who acts: the class policy enforces, and a self-asserted, never verified id. */
export interface ActingPrincipal {
  readonly class: PrincipalClass
  readonly id: string
  readonly source: PrincipalIdSource
}

export class Principal extends Context.Tag("pcli/Principal")<Principal, ActingPrincipal>() {}

export class InvalidPrincipalClass extends Data.TaggedError("InvalidPrincipalClass")<{ readonly value: string }> {
  readonly code = "invalid-principal"
  override get message() {
    return `PCLI_PRINCIPAL must be "human" or "agent", got ${JSON.stringify(this.value)}`
  }
}

export class InvalidPrincipalId extends Data.TaggedError("InvalidPrincipalId")<{
  readonly value: string
  readonly origin: string
}> {
  readonly code = "invalid-principal-id"
  override get message() {
    return `${this.origin} must match [a-z0-9._-]{1,63}, got ${JSON.stringify(this.value)}`
  }
}

const idGrammar = /^[a-z0-9._-]{1,63}$/

/** decisions.md item 3: class from PCLI_PRINCIPAL; id from the flag, else PCLI_PRINCIPAL_ID, else `unnamed`. */
export const resolvePrincipal = (flagId: Option.Option<string>) =>
  Effect.gen(function* () {
    const env = yield* Environment
    const rawClass = env["PCLI_PRINCIPAL"]
    const principalClass: PrincipalClass =
      rawClass === undefined || rawClass === "" ? "human" : rawClass === "human" || rawClass === "agent" ? rawClass : yield* new InvalidPrincipalClass({ value: rawClass })
    const [id, source, origin]: readonly [string, PrincipalIdSource, string] = Option.isSome(flagId)
      ? [flagId.value, "flag", "--principal-id"]
      : env["PCLI_PRINCIPAL_ID"] !== undefined && env["PCLI_PRINCIPAL_ID"] !== ""
        ? [env["PCLI_PRINCIPAL_ID"], "env", "PCLI_PRINCIPAL_ID"]
        : ["unnamed", "default", "default"]
    if (!idGrammar.test(id)) return yield* new InvalidPrincipalId({ value: id, origin })
    return { class: principalClass, id, source } satisfies ActingPrincipal
  })
