import { Effect } from "effect"
import { CAPABILITIES, type Capability, type Principal } from "../../schemas/policy"
import { InvalidCapability, InvalidPrincipal } from "./errors"

export const parsePrincipal = (value: string): Effect.Effect<Principal, InvalidPrincipal> =>
  value === "human" || value === "agent" ? Effect.succeed(value) : Effect.fail(new InvalidPrincipal({ value }))

export const parseCapability = (value: string): Effect.Effect<Capability, InvalidCapability> =>
  (CAPABILITIES as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as Capability)
    : Effect.fail(new InvalidCapability({ value }))
