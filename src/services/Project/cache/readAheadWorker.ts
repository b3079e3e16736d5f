// The read-ahead worker's entry (dist/pcli-read-ahead.cjs): reads a compile's files and does their fast-path work, then writes the cache shards it is handed (readAhead.ts).
import { receiveMessageOnPort, workerData } from "node:worker_threads"
import { contentHash } from "./contentKey"
import { FileKind, fileWork, workIsJson, workSummary } from "./fileWork"
import { abandonSave, awaitWork, readAheadLoop, serveSave, type SpawnData } from "./readAheadLoop"
import { handPatienceMs, type SaveMessage, savePatienceMs } from "./readAheadSave"
import { writeShardFiles } from "./shardFile"

const spawn = workerData as SpawnData
/**
 * Content keys of SQL files only. The worker's TOML decoding is the longer half of a cold compile
 * (the reader waits on it, measured), so the reader hashes the sidecars and contracts it takes;
 * SQL reaches the worker only when it is ahead.
 */
const keyOf = (kind: FileKind, text: string) => (kind === FileKind.sql ? contentHash(text) : undefined)
const data = awaitWork(spawn, handPatienceMs, () => receiveMessageOnPort(spawn.port)?.message)
try {
  if (data !== undefined) {
    readAheadLoop(data, keyOf, fileWork, workIsJson, workSummary)
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
