import { Path } from "@effect/platform"
import { NodePath } from "@effect/platform-node"
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { locateInStore } from "../../src/services/Reclamation/restore"

const path = Effect.runSync(Effect.provide(Path.Path, NodePath.layer))
const H = "a".repeat(64)

describe("restore storage location", () => {
  it.each([
    ["s3://bucket/warehouse", `s3://bucket/warehouse/${H}.parquet`, "s3://bucket/warehouse/"],
    ["gs://bucket/w/", `gs://bucket/w/${H}.parquet`, "gs://bucket/w/"],
    ["az://container/w", `az://container/w/${H}.parquet`, "az://container/w/"],
    ["file:///data/arts", `file:///data/arts/${H}.parquet`, "file:///data/arts/"],
    ["artifacts", `artifacts/${H}.parquet`, "file:///project/artifacts/"]
  ])("%s maps to one store and the key under it", (prefix, filePath, url) => {
    expect(locateInStore(prefix, filePath, "/project", path)).toEqual({ url, key: `${H}.parquet` })
  })

  it.each([
    ["artifacts", `../escaped/${H}.parquet`],
    ["artifacts", `artifacts2/${H}.parquet`],
    ["artifacts", `artifacts/../x/${H}.parquet`],
    ["s3://bucket/w", `s3://bucket/w2/${H}.parquet`],
    ["s3://bucket/w", `s3://other/w/${H}.parquet`],
    ["artifacts", "artifacts/"]
  ])("%s refuses %s as outside the storage prefix", (prefix, filePath) => {
    expect(locateInStore(prefix, filePath, "/project", path)).toMatch(/not inside the storage prefix/)
  })

  it("an unknown scheme is unreachable, not guessed", () => {
    expect(locateInStore("hdfs://nn/w", `hdfs://nn/w/${H}.parquet`, "/project", path)).toMatch(/not reachable: scheme hdfs/)
  })

  it("any key that resolves is strictly under the prefix (property)", () => {
    const segment = fc.constantFrom("a", "b", ".", "..", "", "x.parquet")
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        const located = locateInStore("artifacts", `artifacts/${segments.join("/")}`, "/project", path)
        if (typeof located === "string") return
        const resolved = path.resolve("/project/artifacts", located.key)
        expect(resolved.startsWith("/project/artifacts/")).toBe(true)
      })
    )
  })
})
