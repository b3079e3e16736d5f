// The read-ahead worker's entry (dist/pcli-read-ahead.cjs): reads a compile's files and does their fast-path work, then writes the cache shards it is handed (readAhead.ts).
import { receiveMessageOnPort, workerData } from "node:worker_threads"
import { contentHash } from "./contentKey"
import { FileKind, fileWork, workIsJson, workSummary } from "./fileWork"
import { abandonSave, awaitWork, LEFT_TO_READER, readAheadLoop, serveSave, type SpawnData } from "./readAheadLoop"
import { handPatienceMs, type SaveMessage, savePatienceMs } from "./readAheadSave"
import { writeShardFiles } from "./shardFile"

const spawn = workerData as SpawnData
/** Every file's content key (a native hash: no work for this isolate's compiler). */
const keyOf = (_kind: FileKind, text: string) => contentHash(text)
/**
 * Sidecars and contracts decoded; SQL read and keyed only, its tables left to the reader. Parsing
 * SQL here too made both isolates warm up and optimise the SQL reader for the few statements this
 * thread reached (docs/performance.md, "the worker's share").
 */
const workOf = (kind: FileKind, text: string): unknown => (kind === FileKind.sql ? LEFT_TO_READER : fileWork(kind, text))
const data = awaitWork(spawn, handPatienceMs, () => receiveMessageOnPort(spawn.port)?.message)
try {
  if (data !== undefined) {
    readAheadLoop(data, keyOf, workOf, workIsJson, workSummary)
    serveSave(
      data,
      savePatienceMs,
      () => receiveMessageOnPort(data.port)?.message as SaveMessage | undefined,
      (message) => writeShardFiles(message.modelsDir, message.shards, message.build),
      (message) => message.last
    )
  }
} finally {
  // Whatever ended this thread, the reader is not left waiting for a save it would not do.
  if (data !== undefined) abandonSave(data)
  spawn.port.close()
}
