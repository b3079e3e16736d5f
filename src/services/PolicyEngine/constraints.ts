import type { Capability, ScopeTable } from "../../schemas/policy"
import { REFINEMENTS } from "../../schemas/policy"

/** One way a rule narrows what it matches; specificity compares the sets of kinds two rules use. */
interface ConstraintKind {
  /** The `ScopeTable` field it reads (or `refinement` for a refined capability). */
  readonly name: string
  readonly constrains: (scope: ScopeTable, capability: Capability) => boolean
}

const nonEmpty = <A>(xs: ReadonlyArray<A> | undefined): boolean => xs !== undefined && xs.length > 0

/** Bit k of a rule's constraint set is kind k. Adding a scope key means adding its kind here. */
export const CONSTRAINT_KINDS = [
  { name: "models", constrains: (scope) => nonEmpty(scope.models) },
  { name: "tags", constrains: (scope) => Object.keys(scope.tags ?? {}).length > 0 },
  { name: "classifications", constrains: (scope) => nonEmpty(scope.classifications) },
  { name: "exclude_classifications", constrains: (scope) => nonEmpty(scope.exclude_classifications) },
  { name: "contracted", constrains: (scope) => scope.contracted !== undefined },
  { name: "layer", constrains: (scope) => scope.layer !== undefined },
  { name: "refinement", constrains: (_, capability) => REFINEMENTS.includes(capability) }
] as const satisfies ReadonlyArray<ConstraintKind>

// Constraint sets are int32 bitmasks: tsc rejects a 33rd kind here instead of masks silently wrapping.
type Below33<N extends number, Acc extends ReadonlyArray<unknown> = []> = Acc["length"] extends 33 ? false : Acc["length"] extends N ? true : Below33<N, [...Acc, 0]>
/** `true` when N constraint kinds fit one int32 constraint set. */
export type FitsInt32<N extends number> = Below33<N>
type Holds<T extends true> = T
export type ConstraintKindsFitInt32 = Holds<FitsInt32<(typeof CONSTRAINT_KINDS)["length"]>>

/** A rule's constraint set: a strict subset of another's is dominated (less specific). */
export const constraintSet = (scope: ScopeTable, capability: Capability): number => {
  let set = 0
  CONSTRAINT_KINDS.forEach((kind, bit) => {
    if (kind.constrains(scope, capability)) set |= 1 << bit
  })
  return set
}

/** True when constraint set `a` is a strict subset of `b` (a rule with `a` is dominated by one with `b`). */
export const strictlyWithin = (a: number, b: number): boolean => a !== b && (a & b) === a
