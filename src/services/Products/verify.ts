import { readFileSync } from "node:fs"
import * as nodePath from "node:path"
import { Effect, Either, Option } from "effect"
import * as Toml from "smol-toml"
import type { ClassificationsBlock, MaskBlock, PolicyBlock, PolicyEffect } from "../../schemas/policy"
import type { ProductVerifyOutput } from "../../schemas/products"
import { toSubject } from "../PolicyEngine/attributes"
import { compilePolicy, evaluate, type Verdict } from "../PolicyEngine/evaluate"
import { checkSpec, type LoadedSpec, listSpecStems, listStateDirs, PRODUCTS_DIR, type ProductProject, readManifest, readSpecFile, scanManifest, specRel } from "./files"
import { formatRejection, productId, type ProductSpec } from "./spec"
import { coded } from "./errors"
import { tagResolves } from "../PolicyEngine/masking"

/** What verify knows of pcli.toml: absent, unparseable (any reason), or its policy-related blocks. */
export type PolicySource =
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly detail: string }
  | {
      readonly kind: "loaded"
      readonly policy: PolicyBlock | undefined
      readonly mask: MaskBlock | undefined
      readonly classifications: ClassificationsBlock | undefined
    }

/** The `[policy]` block that makes a product's trust posture pass, scoped to exactly its output model. */
export const pasteBlock = (outputModel: string): string =>
  [
    "[policy]",
    "version = 1",
    'default_agent_effect = "require_review"',
    "",
    "# Authoring lane: agents may propose changes to this product's output model.",
    "[[policy.rules]]",
    'principal = "agent"',
    'capability = "propose"',
    'effect = "allow"',
    `scope = { models = [${JSON.stringify(outputModel)}] }`,
    "",
    "# Defence in depth: applying those changes always waits for a human review.",
    "[[policy.rules]]",
    'principal = "agent"',
    'capability = "apply"',
    'effect = "require_review"',
    `scope = { models = [${JSON.stringify(outputModel)}] }`,
    ""
  ].join("\n")

/** The model as lowering leaves it: the evaluator's view of the product's output. */
export const postLoweringSubject = (spec: ProductSpec) =>
  toSubject({
    name: spec.outputModel,
    tags: { product: spec.name },
    classifications: (spec.classifications ?? []).map(([, tag]) => tag),
    contracted: true,
    layer: undefined,
    downstreams: 0,
    // Unknown reachability: any max_downstreams ceiling fails closed to review.
    reachableDownstreams: undefined
  })

interface Check {
  readonly status: "pass" | "needs_input" | "fail"
  readonly reason: string
  readonly paste?: boolean
  readonly effects?: { readonly propose: PolicyEffect; readonly apply: PolicyEffect }
}

const PASS: Check = { status: "pass", reason: "" }

/** Literal `models = [<output_model>]` and nothing else: no `any`, glob, predicate or ceiling. */
const isExactScope = (policy: PolicyBlock, verdict: Verdict, model: string): boolean => {
  if (verdict.matched_rule === null) return false
  const scope = policy.rules[verdict.matched_rule]?.scope
  if (scope === undefined || scope.any === true) return false
  return (
    scope.models !== undefined &&
    scope.models.length === 1 &&
    scope.models[0] === model &&
    Object.keys(scope.tags ?? {}).length === 0 &&
    (scope.classifications ?? []).length === 0 &&
    (scope.exclude_classifications ?? []).length === 0 &&
    scope.contracted === undefined &&
    scope.layer === undefined &&
    scope.max_downstreams === undefined
  )
}

/** Check 1: the trust posture, through the real evaluator against the post-lowering attributes. */
export const checkPosture = (spec: ProductSpec, source: PolicySource): Check => {
  if (source.kind === "missing") return { status: "needs_input", reason: "no pcli.toml: add one with this [policy] block", paste: true }
  if (source.kind === "invalid") return { status: "needs_input", reason: `pcli.toml does not load: ${source.detail}`, paste: true }
  const policy = source.policy
  if (policy === undefined) return { status: "needs_input", reason: "pcli.toml has no [policy] block", paste: true }
  const compiled = compilePolicy(policy)
  const subject = postLoweringSubject(spec)
  const propose = evaluate(compiled, "agent", "propose", subject)
  const apply = evaluate(compiled, "agent", "apply", subject)
  const effects = { propose: propose.effect, apply: apply.effect }
  const needs = (reason: string): Check => ({ status: "needs_input", reason, paste: true, effects })
  const model = spec.outputModel
  if (policy.default_agent_effect !== "require_review") {
    return needs(`default_agent_effect is ${policy.default_agent_effect}; a product needs require_review`)
  }
  if (propose.effect !== "allow") return needs(`agent propose on '${model}' resolves ${propose.effect} (${propose.reason}); it must be allowed`)
  if (!isExactScope(policy, propose, model)) {
    return needs(
      propose.matched_rule === null
        ? `agent propose on '${model}' is allowed only by default; add a rule scoped to exactly models = ["${model}"]`
        : `agent propose on '${model}' is allowed by rule ${propose.matched_rule}, whose scope is not exactly models = ["${model}"] (no any, glob or other predicate)`
    )
  }
  if (policy.rules[propose.matched_rule!]?.autonomy_budget !== undefined) {
    return needs(`rule ${propose.matched_rule} (agent propose on '${model}') carries an autonomy_budget; the authoring lane takes none`)
  }
  if (apply.effect === "allow") {
    return { status: "fail", reason: `agent apply on '${model}' resolves allow (${apply.reason}); it must resolve require_review or deny`, effects }
  }
  return { ...PASS, effects }
}

/** Check 2: every classification tag has a masking resolution. */
export const checkClassifications = (spec: ProductSpec, source: PolicySource): Check => {
  if (source.kind !== "loaded") return PASS
  const unresolved = [...new Set((spec.classifications ?? []).map(([, tag]) => tag).filter((t) => !tagResolves(t, source.mask, source.classifications)))]
  if (unresolved.length === 0) return PASS
  return {
    status: "fail",
    reason: `[classification-unresolved] tag(s) ${unresolved.map((t) => `'${t}'`).join(", ")} resolve to no [mask] strategy, [mask.<env>] override or [classifications].allow_unmasked entry`
  }
}

/**
 * What another spec file claims: its `product.name` and resolved output model, read from the TOML
 * without the full strict parse (a claim counts even when that file has other faults; validate reports them).
 */
const readClaim = (root: string, stem: string) => {
  // Hundreds of tiny files: a synchronous read skips a thread-pool round trip per file (5-10x faster here).
  const text = Either.getOrUndefined(Either.try(() => readFileSync(nodePath.join(root, PRODUCTS_DIR, `${stem}.toml`), "utf8")))
  const data = text === undefined ? undefined : Either.getOrUndefined(Either.try(() => Toml.parse(text) as Record<string, unknown>))
  const product = data?.["product"]
  if (typeof product !== "object" || product === null || Array.isArray(product)) return undefined
  const name = (product as Record<string, unknown>)["name"]
  const output = (product as Record<string, unknown>)["output"]
  const declared = typeof output === "object" && output !== null ? (output as Record<string, unknown>)["model"] : undefined
  const model = typeof declared === "string" ? declared : typeof name === "string" ? name : undefined
  return { name: typeof name === "string" ? name : undefined, model }
}

/** Check 3: neither the name nor the output model is claimed by another spec file or committed manifest. */
export const checkIdentity = (project: ProductProject, spec: ProductSpec) =>
  Effect.gen(function* () {
    const fail = (reason: string): Check => ({ status: "fail", reason })
    // The product's own unreadable manifest is compile's business (commit-io / manifest-unreadable), not a collision.
    const own = Option.flatten(Option.fromNullable(Either.getOrUndefined(yield* Effect.either(readManifest(project, spec.name)))))
    if (Option.isSome(own) && own.value.spec_path !== specRel(spec.name)) {
      return fail(`[duplicate-product-name] .pcli/fulfillment/${spec.name} was lowered from ${own.value.spec_path}, not ${specRel(spec.name)}`)
    }
    const others = (yield* listSpecStems(project)).filter((stem) => stem !== spec.name)
    for (const stem of others) {
      const claim = readClaim(project.root, stem)
      if (claim === undefined) continue
      if (claim.name === spec.name) return fail(`[duplicate-product-name] ${specRel(stem)} also declares product.name = '${spec.name}'`)
      if (claim.model === spec.outputModel) return fail(`[duplicate-output-model] ${specRel(stem)} also claims output model '${spec.outputModel}'`)
    }
    const dirs = (yield* listStateDirs(project)).filter((dir) => dir !== spec.name)
    // Directories in sorted order: the first unreadable or colliding manifest decides.
    for (const dir of dirs) {
      const manifest = scanManifest(project.root, dir)
      if (Either.isLeft(manifest)) return fail(coded(manifest.left))
      if (Option.isSome(manifest.right) && manifest.right.value.output_model === spec.outputModel) {
        return fail(`[duplicate-output-model] .pcli/fulfillment/${dir} has a committed lowering of output model '${spec.outputModel}'`)
      }
    }
    return PASS
  })

export interface VerifyResult {
  readonly output: ProductVerifyOutput
  /** The parsed spec, when it parsed (compile lowers it). */
  readonly loaded: LoadedSpec | undefined
}

/** `product verify`: writes nothing; the first failing check decides the status. */
export const verifyProduct = (project: ProductProject, name: string, source: PolicySource) =>
  Effect.gen(function* () {
    const file = yield* readSpecFile(project, name)
    const base = { command: "product_verify" as const, product_id: productId(name), spec_digest: file.digest }
    const parsed = checkSpec(file)
    if (Either.isLeft(parsed)) {
      const e = parsed.left
      const reason = e._tag === "SpecRejected" ? formatRejection(e) : coded(e)
      const output: ProductVerifyOutput = { ...base, status: "fail", reason }
      return { output, loaded: undefined } satisfies VerifyResult
    }
    const spec = parsed.right
    const loaded: LoadedSpec = { ...file, spec }
    const posture = checkPosture(spec, source)
    const checks = [posture, checkClassifications(spec, source)]
    let decided = checks.find((c) => c.status !== "pass")
    if (decided === undefined) {
      const identity = yield* checkIdentity(project, spec)
      if (identity.status !== "pass") decided = identity
    }
    const result = decided ?? { status: "pass" as const, reason: "trust posture, classification tags and identity verified" }
    const effects = posture.effects
    const output: ProductVerifyOutput = {
      ...base,
      output_model: spec.outputModel,
      status: result.status,
      reason: result.reason,
      ...(result.paste === true ? { paste_block: pasteBlock(spec.outputModel) } : {}),
      ...(effects === undefined ? {} : { propose_effect: effects.propose, apply_effect: effects.apply })
    }
    return { output, loaded } satisfies VerifyResult
  })

/** decisions.md item 2: verify alone maps its status to the exit code. */
export const verifyExitCode = (status: ProductVerifyOutput["status"]): 0 | 1 | 2 =>
  status === "pass" ? 0 : status === "needs_input" ? 1 : 2
