import { Context, type Effect } from "effect"
import type { ConfigError } from "../ProjectConfig/ProjectConfig"
import type { ProductProject } from "./files"
import type { PolicySource } from "./verify"

/**
 * What the product commands work on: the project's root and models directory, and what verify
 * sees of pcli.toml — a missing or broken config is an input to verify, not a failure.
 */
export interface ProductWorkspaceInfo {
  readonly project: ProductProject
  readonly policy: PolicySource
  /** Commands other than verify/compile need a config that loads (it may name the store's namespace). */
  readonly requireConfig: Effect.Effect<void, ConfigError>
}

export class ProductWorkspace extends Context.Tag("pcli/ProductWorkspace")<ProductWorkspace, ProductWorkspaceInfo>() {}
