// The read-ahead worker's entry (dist/pcli-read-ahead.cjs): reads a compile's files and does their fast-path work (readAhead.ts).
import * as NodeFs from "node:fs"
import { workerData } from "node:worker_threads"
import { contentHash } from "./contentKey"
import { fileWork } from "./fileWork"
import { type LoopData, readAheadLoop } from "./readAheadLoop"

readAheadLoop(NodeFs, workerData as LoopData, contentHash, () => true, fileWork)
