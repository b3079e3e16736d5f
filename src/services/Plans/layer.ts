import type { FileSystem, Path } from "@effect/platform"
import { Layer } from "effect"
import * as AppliedState from "./AppliedState"
import * as PlanStore from "./PlanStore"

/** Plan store and applied state of the project at `root` (both under `<root>/.pcli/`). */
export const layer = (root: string): Layer.Layer<PlanStore.PlanStore | AppliedState.AppliedState, never, FileSystem.FileSystem | Path.Path> =>
  Layer.merge(PlanStore.layer(root), AppliedState.layer(root))
