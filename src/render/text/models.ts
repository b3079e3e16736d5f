import type { ModelShowOutput } from "../../schemas/lineage"

export const modelShowText = (o: ModelShowOutput): string =>
  [
    `${o.name} → ${o.target} (${o.strategy}${o.layer === undefined ? "" : `, layer ${o.layer}`})`,
    ...(o.intent === undefined ? [] : [`intent: ${o.intent}`]),
    `tags: ${Object.entries(o.tags).map(([k, v]) => `${k}=${v}`).join(", ") || "-"}`,
    `depends on: ${o.depends_on.join(", ") || "-"}; downstreams: ${o.downstreams}`,
    `tests: ${o.tests.length}; contract: ${o.contract === null ? "none" : o.contract.columns.map((c) => `${c.name} ${c.type}${c.nullable ? "" : " not null"}`).join(", ")}`,
    `-- ${o.sql_path}`,
    o.sql.trimEnd()
  ].join("\n")
