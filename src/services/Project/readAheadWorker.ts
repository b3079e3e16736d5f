// The read-ahead worker's entry (dist/pcli-read-ahead.cjs): reads a compile's files and does their fast-path work (readAhead.ts).
import { workerData } from "node:worker_threads"
import { contentHash } from "./contentKey"
import { fileWork } from "./fileWork"
import { type LoopData, readAheadLoop } from "./readAheadLoop"

readAheadLoop(workerData as LoopData, contentHash, fileWork)
