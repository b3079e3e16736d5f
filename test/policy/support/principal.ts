import { Effect } from "effect"
import type { PrincipalContext } from "../../../src/services/PolicyEngine/input"
import { Principal } from "../../../src/services/Principal/Principal"

/** Runs a command as this principal (commands read the acting principal from their requirements). */
export const actingAs =
  (actor: PrincipalContext) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Principal>> =>
    Effect.provideService(self, Principal, { class: actor.class, id: actor.id, source: actor.idSource })
