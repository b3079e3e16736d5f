// The read-ahead worker's entry (dist/pcli-read-ahead.cjs): reads a compile's files and does their fast-path work (readAhead.ts).
import * as NodeFs from "node:fs"
import { workerData } from "node:worker_threads"
import { FileKind, fileWork } from "./fileWork"
import { type LoopData, readAheadLoop } from "./readAheadLoop"

// SQL is left to the reader, which parses it while this thread reads and decodes sidecars (the two halves weigh about the same).
readAheadLoop(NodeFs, workerData as LoopData, (kind) => kind !== FileKind.sql, fileWork)
