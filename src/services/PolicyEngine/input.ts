import { Effect } from "effect"
import { CAPABILITIES, type Capability, type Principal } from "../../schemas/policy"
import type { PrincipalClass, PrincipalIdSource } from "../Ledger/Ledger"
import { InvalidCapability, InvalidPrincipal } from "./errors"

/** Who runs a command (resolved by the Principal service from PCLI_PRINCIPAL / --principal-id / PCLI_PRINCIPAL_ID). */
export interface PrincipalContext {
  readonly class: PrincipalClass
  readonly id: string
  readonly idSource: PrincipalIdSource
}

export const parsePrincipal = (value: string): Effect.Effect<Principal, InvalidPrincipal> =>
  value === "human" || value === "agent" ? Effect.succeed(value) : Effect.fail(new InvalidPrincipal({ value }))

export const parseCapability = (value: string): Effect.Effect<Capability, InvalidCapability> =>
  (CAPABILITIES as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as Capability)
    : Effect.fail(new InvalidCapability({ value }))
