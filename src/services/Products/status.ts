import { FileSystem } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import type { ProductJournalOutput, ProductListEntry, ProductListOutput } from "../../schemas/products"
import { snapshotIntact } from "./approve"
import { coded, ProductNotFound } from "./errors"
import { abs, checkSpec, isSafeStem, journalRel, listSpecStems, type ProductProject, readManifest, readSpecFile } from "./files"
import { readApproval, readJournal, readRecord, recordedProducts } from "./journal"
import { type ArtifactCheck, describeArtifactProblem, isCanonicalRelative, type LoweringManifest, sha256 } from "./manifest"
import { formatRejection, productId } from "./spec"

/** Byte-verification of every artifact a committed manifest lists (read-only, follows nothing it did not list). */
export const checkArtifacts = (project: ProductProject, manifest: LoweringManifest) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const checks: Array<ArtifactCheck> = []
    for (const rel of Object.keys(manifest.artifacts).sort()) {
      const expected = manifest.artifacts[rel]!
      if (!isCanonicalRelative(rel)) {
        checks.push({ rel, status: "refused", expected, detail: "absolute path or . / .. component" })
        continue
      }
      const bytes = yield* fs.readFile(yield* abs(project, rel)).pipe(Effect.either)
      if (Either.isLeft(bytes)) {
        const notFound = bytes.left._tag === "SystemError" && bytes.left.reason === "NotFound"
        checks.push({ rel, status: notFound ? "missing" : "unreadable", expected })
        continue
      }
      const found = sha256(bytes.right)
      checks.push(found === expected ? { rel, status: "ok" } : { rel, status: "drift", expected, found })
    }
    return checks.flatMap((c) => Option.toArray(Option.fromNullable(describeArtifactProblem(c))))
  })

const fileExists = (project: ProductProject, rel: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* fs.exists(yield* abs(project, rel)).pipe(Effect.orElseSucceed(() => false))
  })

/** One product's status, read-only: it never recovers, writes or creates anything. */
export const statusEntry = (project: ProductProject, name: string) =>
  Effect.gen(function* () {
    const file = yield* readSpecFile(project, name).pipe(Effect.either)
    const spec = Either.isRight(file) ? Either.getRight(checkSpec(file.right)) : Option.none()
    const specFields = Either.match(file, {
      onLeft: (e) => ({ spec_present: false, spec_error: coded(e) }),
      onRight: (f) => {
        const parsed = checkSpec(f)
        return {
          spec_present: true,
          product_id: productId(name),
          spec_digest: f.digest,
          ...Either.match(parsed, {
            onLeft: (e) => ({ spec_error: e._tag === "SpecRejected" ? formatRejection(e) : coded(e) }),
            onRight: (s) => ({ output_model: s.outputModel })
          })
        }
      }
    })
    const manifest = yield* readManifest(project, name)
    const problems = Option.isSome(manifest) ? yield* checkArtifacts(project, manifest.value) : []
    const approval = yield* readApproval(name)
    const record = yield* readRecord(name)
    const intact = Option.isSome(approval) ? yield* snapshotIntact(project, approval.value) : undefined
    return {
      product: name,
      ...specFields,
      ...Option.match(manifest, {
        onNone: () => ({}),
        onSome: (m) => ({ committed_phase: m.phase, committed_spec_digest: m.spec_digest })
      }),
      artifact_problems: problems,
      staging_journal_present: yield* fileExists(project, journalRel(name)),
      ...Option.match(approval, {
        onNone: () => ({}),
        onSome: (a) => ({
          approval: { spec_digest: a.spec_digest, approver: a.approver, ...(a.approved_by === null ? {} : { approved_by: a.approved_by }), approved_at: a.approved_at, snapshot_path: a.snapshot_path },
          snapshot_intact: intact!,
          ...(Option.isSome(spec) && Either.isRight(file) ? { spec_matches_approval: file.right.digest === a.spec_digest } : {})
        })
      }),
      // A tampered snapshot approves nothing: the state it recorded is shown beside, never as the product's state.
      ...Option.match(record, {
        onNone: () => ({}),
        onSome: (r) => (intact === false ? { fulfill_state: "snapshot_tampered" as const, recorded_state: r.record.state } : { fulfill_state: r.record.state })
      }),
      journal_rows: Option.match(record, { onNone: () => 0, onSome: (r) => r.record.journal_seq })
    } satisfies ProductListEntry
  })

/** A product is known when its spec file exists or the store holds a record under its name. */
export const isKnown = (project: ProductProject, name: string) =>
  Effect.gen(function* () {
    if (!isSafeStem(name)) return false
    if (yield* fileExists(project, `products/${name}.toml`)) return true
    return (yield* recordedProducts).includes(name)
  })

export const requireKnown = (project: ProductProject, name: string) =>
  Effect.flatMap(isKnown(project, name), (known) => (known ? Effect.void : Effect.fail(new ProductNotFound({ product: name }))))

/** `product list`: spec stems ∪ recorded names, sorted by name. */
export const listProducts = (project: ProductProject) =>
  Effect.gen(function* () {
    const names = [...new Set([...(yield* listSpecStems(project)), ...(yield* recordedProducts)])].sort()
    const products = yield* Effect.forEach(names, (n) => statusEntry(project, n))
    return { command: "product_list", products, count: products.length } satisfies ProductListOutput
  })

/** `product journal`: rows in append order; an unknown product is `product_not_found`. */
export const productJournal = (project: ProductProject, name: string) =>
  Effect.gen(function* () {
    yield* requireKnown(project, name)
    const rows = yield* readJournal(name)
    return { command: "product_journal", product: name, product_id: productId(name), rows, count: rows.length } satisfies ProductJournalOutput
  })
