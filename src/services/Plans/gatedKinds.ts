import type { PlanKind } from "../../schemas/plans"

// Apart from gate.ts (the policy engine, the scope changes): the review queue (queue.ts) needs these kinds alone.

/** Kinds that need a valid marker whoever applies them and whatever policy says. */
export const ALWAYS_GATED: ReadonlySet<PlanKind> = new Set(["gc", "backfill", "restore", "ai_authored", "escalation", "promote"])
