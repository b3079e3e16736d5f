import * as v8 from "node:v8"
import { Effect } from "effect"

/**
 * V8 flags for long runs (decisions.md "Embedded warehouse settings", figures in performance.md
 * "Run memory"): the young generation stays at its initial 1 MB semi-spaces instead of growing to
 * 16 MB each, and the old generation grows by 15% past its live size rather than V8's default
 * factor (up to 4×). A run's live JS heap is ~20 MB at 2,000
 * models, yet V8 reserved ~100 MB for it. The bin cannot pass node flags, so they are set at run
 * time, after the bundle's code cache is read (a flag change before it would reject the cache).
 */
export const runHeapFlags = "--semi-space-growth-factor=1 --heap-growing-percent=15"

export const compactHeap = Effect.sync(() => v8.setFlagsFromString(runHeapFlags))
