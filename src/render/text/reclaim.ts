import type { BackfillOutput } from "../../schemas/reclaim"

export const backfillText = (o: BackfillOutput): string =>
  [
    `backfill plan ${o.plan_id} (${o.trigger}): ${o.path}`,
    `seeds: ${o.seed_models.join(", ")}`,
    "layers:",
    ...o.execution_layers.map((l, i) => `  ${i}: ${l.join(", ")}`),
    ...(o.partition_scope === undefined
      ? []
      : [`window: ${o.partition_scope.from} .. ${o.partition_scope.to} on ${o.partition_scope.models.length === 0 ? "no model (inert)" : o.partition_scope.models.join(", ")}`]),
    `estimated cost (${o.cost_estimate.basis})${o.cost_estimate.total_duration_ms === undefined ? "" : `: ~${o.cost_estimate.total_duration_ms} ms of warehouse time`}`,
    ...o.warnings.map((w) => `warning: ${w}`),
    o.message,
    `next: ${o.review_command}, then ${o.apply_command}`
  ].join("\n")
