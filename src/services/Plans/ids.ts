import type { PlanKind } from "../../schemas/plans"
import { hashCanonical } from "../Artifacts/artifacts"

/** A plan id: hex BLAKE3, so it is also a safe file name. */
export const PLAN_ID = /^[0-9a-f]{64}$/

export const isPlanId = (id: string): boolean => PLAN_ID.test(id)

/**
 * Hex BLAKE3 of the canonical (key-sorted, compact) JSON of `{kind, payload}`. Who planned and
 * when stay outside the hash, so planning the same change twice gives the same id.
 */
export const planIdOf = (kind: PlanKind | string, payload: unknown): string => hashCanonical({ kind, payload })
