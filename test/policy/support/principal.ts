import { Effect } from "effect"
import { type ActingPrincipal, Principal } from "../../../src/services/Principal/Principal"

/** Runs a command as this principal (commands read the acting principal from their requirements). */
export const actingAs =
  (actor: ActingPrincipal) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Principal>> =>
    Effect.provideService(self, Principal, actor)
