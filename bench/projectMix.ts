/**
 * The realistic mix (issue 37): generated models whose SQL looks like a real project's, shared by
 * bench/run, bench/noop and bench/compile. Every model has the columns id (unique, not null),
 * k (0-6), label and v, so any model can read any earlier one and every model carries the same
 * three tests. Layers vary in width; model i reads only models before it, so index order is
 * topological. Shapes: projections, 1-3-way joins, CTEs, window functions, GROUP BY aggregates,
 * IN (SELECT …) / EXISTS subqueries, and a few UNION ALL.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export type Mix = "today" | "realistic"

/** Which mixes a bench measures: BENCH_MIX=today|realistic|both (default both). */
export const mixesToRun = (): ReadonlyArray<Mix> => {
  const chosen = process.env["BENCH_MIX"] ?? "both"
  return chosen === "both" ? ["today", "realistic"] : [chosen as Mix]
}

/** The shapes and their share of the non-root models, in percent. */
const SHAPES = [
  ["projection", 18],
  ["join", 20],
  ["cte", 14],
  ["window", 12],
  ["aggregate", 12],
  ["in-subquery", 9],
  ["exists", 8],
  ["union", 7]
] as const
export type Shape = (typeof SHAPES)[number][0]

const modelName = (i: number) => `m${String(i).padStart(5, "0")}`

/** A deterministic generator, so every run of a bench builds the same project. */
const seeded = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648

const shapeAt = (r: number): Shape => {
  let acc = 0
  for (const [shape, share] of SHAPES) {
    acc += share / 100
    if (r < acc) return shape
  }
  return "projection"
}

/** The SQL of one non-root model of the given shape over its upstream tables (1-3, the first from the layer just above). */
export const shapeSql = (shape: Shape, ups: ReadonlyArray<string>): string => {
  const [a, b = a, c = b] = ups.map((u) => `main.${u}`) as [string, ...Array<string>]
  switch (shape) {
    case "projection":
      return `SELECT id, (k + 1) % 7 AS k, lower(label) AS label, (v * 3 + 1) % 1000 AS v\nFROM ${a}\nWHERE id % 50 <> 3`
    case "join":
      return ups.length >= 3
        ? `SELECT t0.id, (t0.k + t1.k) % 7 AS k, t0.label, (t0.v + coalesce(t2.v, 0)) % 1000 AS v\nFROM ${a} t0\nJOIN ${b} t1 USING (id)\nLEFT JOIN ${c} t2 ON t2.id = t0.id`
        : `SELECT t0.id, (t0.k + t1.k) % 7 AS k, t1.label, (t0.v + t1.v) % 1000 AS v\nFROM ${a} t0\nJOIN ${b} t1 ON t1.id = t0.id`
    case "cte":
      return `WITH recent AS (\n  SELECT id, k, label, v FROM ${a} WHERE v > 10\n), other AS (\n  SELECT id, max(v) AS v FROM ${b} GROUP BY id\n)\nSELECT r.id, r.k, r.label || '-c' AS label, (r.v + coalesce(o.v, 0)) % 1000 AS v\nFROM recent r\nLEFT JOIN other o USING (id)`
    case "window":
      return `SELECT id, k, label,\n  (sum(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)\n   + row_number() OVER (PARTITION BY k ORDER BY v DESC, id)) % 1000 AS v\nFROM ${a}`
    case "aggregate":
      return `SELECT id, min(k) AS k, min(label) AS label, (sum(v) + count(*)) % 1000 AS v\nFROM (SELECT id, k, label, v FROM ${a} UNION ALL SELECT id, k, label, v FROM ${b})\nGROUP BY id\nHAVING count(*) > 0`
    case "in-subquery":
      return `SELECT id, k, label, v\nFROM ${a}\nWHERE id IN (SELECT id FROM ${b} WHERE k <> 3 OR v > 50)\n  AND k IN (SELECT DISTINCT k FROM ${c})`
    case "exists":
      return `SELECT t0.id, t0.k, t0.label, t0.v\nFROM ${a} t0\nWHERE EXISTS (SELECT 1 FROM ${b} t1 WHERE t1.id = t0.id AND t1.v >= t0.v % 20)\n  AND NOT EXISTS (SELECT 1 FROM ${c} t2 WHERE t2.id = t0.id + 1000000)`
    case "union":
      return `SELECT id, k, label, v FROM ${a} WHERE id % 2 = 0\nUNION ALL\nSELECT id, k, upper(label) AS label, v FROM ${b} WHERE id % 2 = 1`
  }
}

/** A root model: `rows` rows from range(), columns as every model has them. */
export const rootSql = (rows: number) =>
  `SELECT range AS id, range % 7 AS k, 'v' || range AS label, (range * 7919) % 1000 AS v FROM range(${rows})`

export const TESTS_TOML =
  `[[tests]]\ntype = "not_null"\ncolumn = "id"\n\n[[tests]]\ntype = "unique"\ncolumn = "id"\n\n` +
  `[[tests]]\ntype = "accepted_values"\ncolumn = "k"\nvalues = [0, 1, 2, 3, 4, 5, 6]\n`

export interface MixModel {
  readonly name: string
  readonly sql: string
  readonly shape: Shape | "root"
}

/**
 * `count` realistic models in layers of varying width (2 to ~8% of the project, at least one in
 * eight models a root in the first layer); each non-root model reads 1-3 models, the first from
 * the layer just above and the others from any earlier layer.
 */
export const realisticModels = (count: number, rootRows: number, seed = 37): ReadonlyArray<MixModel> => {
  const rand = seeded(seed)
  const roots = Math.max(1, Math.round(count / 8))
  const models: Array<MixModel> = []
  let layerStart = 0
  let layerEnd = Math.min(count, roots)
  for (let i = 0; i < layerEnd; i++) models.push({ name: modelName(i), sql: rootSql(rootRows), shape: "root" })
  const maxWidth = Math.max(2, Math.round(count * 0.08))
  while (layerEnd < count) {
    const width = Math.min(count - layerEnd, 2 + Math.floor(rand() * rand() * maxWidth))
    for (let i = layerEnd; i < layerEnd + width; i++) {
      const shape = shapeAt(rand())
      const wanted = shape === "join" ? 2 + Math.floor(rand() * 2) : shape === "projection" || shape === "window" ? 1 : 2 + Math.floor(rand() * 2)
      const ups = [modelName(layerStart + Math.floor(rand() * (layerEnd - layerStart)))]
      while (ups.length < Math.min(wanted, layerEnd)) {
        const pick = modelName(Math.floor(rand() * layerEnd))
        if (!ups.includes(pick)) ups.push(pick)
      }
      models.push({ name: modelName(i), sql: shapeSql(shape, ups), shape })
    }
    layerStart = layerEnd
    layerEnd += width
  }
  return models
}

/** Writes models/<name>.sql and .toml (target and the three tests) for each model; returns the models directory. */
export const writeModels = (dir: string, models: ReadonlyArray<MixModel>, catalog = "warehouse"): string => {
  const modelsDir = path.join(dir, "models")
  fs.mkdirSync(modelsDir, { recursive: true })
  for (const m of models) {
    fs.writeFileSync(path.join(modelsDir, `${m.name}.sql`), m.sql)
    fs.writeFileSync(
      path.join(modelsDir, `${m.name}.toml`),
      `name = "${m.name}"\nintent = "${m.shape}"\n[target]\ncatalog = "${catalog}"\nschema = "main"\ntable = "${m.name}"\n\n[tags]\nshape = "${m.shape}"\n\n${TESTS_TOML}`
    )
  }
  return modelsDir
}

/** How many models of each shape, for a bench's header line. */
export const describeMix = (models: ReadonlyArray<MixModel>): string => {
  const counts = new Map<string, number>()
  for (const m of models) counts.set(m.shape, (counts.get(m.shape) ?? 0) + 1)
  return [...counts].map(([s, n]) => `${s} ${n}`).join(", ")
}
