import type { PlanKind } from "../../schemas/plans"
import type { Principal } from "../../schemas/policy"

// Apart from gate.ts (the policy engine, the scope changes): the review queue (queue.ts) needs these kinds alone.

/** Kinds that need a valid marker whoever applies them and whatever policy says. */
export const ALWAYS_GATED: ReadonlySet<PlanKind> = new Set(["gc", "backfill", "restore", "ai_authored", "escalation", "promote"])

/** An agent's promote or rollback needs a human's marker whatever policy says (decision 37). */
export const needsHumanMarker = (kind: PlanKind, principal: Principal): boolean => principal === "agent" && (kind === "promote" || kind === "rollback")
