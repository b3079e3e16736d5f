import { FileSystem, Path } from "@effect/platform"
import { Effect, Either } from "effect"
import type { Finding } from "../../schemas/validate"
import { formatRejection, parseSpec } from "../Products/spec"

/**
 * V050–V053 over `products/` next to pcli.toml, offline, every `*.toml` in sorted order.
 * Silent when there is no `products/` directory.
 */
export const validateProducts = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.join(root, "products")
    const entries = yield* fs.readDirectory(dir).pipe(Effect.option)
    if (entries._tag === "None") return [] as ReadonlyArray<Finding>
    const files = entries.value.filter((f) => f.endsWith(".toml")).sort()
    const findings: Array<Finding> = []
    const claims = new Map<string, string>()
    let failed = false
    for (const f of files) {
      const subject = `products/${f}`
      const bytes = yield* fs.readFile(path.join(dir, f)).pipe(Effect.either)
      const parsed = Either.isLeft(bytes)
        ? Either.left(`[spec-file-missing] cannot read ${subject}`)
        : Either.mapLeft(parseSpec(bytes.right), formatRejection)
      if (Either.isLeft(parsed)) {
        failed = true
        findings.push({ code: "V051", severity: "error", subject, message: `spec does not parse: ${parsed.left}` })
        continue
      }
      const spec = parsed.right
      const stem = f.slice(0, -".toml".length)
      if (spec.name !== stem) {
        failed = true
        findings.push({ code: "V052", severity: "error", subject, message: `product.name '${spec.name}' differs from the file name '${stem}'` })
      }
      const claimant = claims.get(spec.outputModel)
      if (claimant !== undefined) {
        failed = true
        findings.push({ code: "V053", severity: "error", subject, message: `product.output.model '${spec.outputModel}' is already claimed by ${claimant}` })
      } else claims.set(spec.outputModel, subject)
    }
    if (files.length > 0 && !failed) findings.push({ code: "V050", severity: "ok", subject: "products", message: `${files.length} product spec(s) parsed` })
    return findings as ReadonlyArray<Finding>
  })
