// The read-ahead worker's entry (dist/pcli-read-ahead.cjs): reads a compile's files and does their fast-path work, then writes the cache shards it is handed (readAhead.ts).
import { receiveMessageOnPort, workerData } from "node:worker_threads"
import { contentHash } from "./contentKey"
import { fileWork, workIsJson, workSummary } from "./fileWork"
import { abandonSave, type LoopData, readAheadLoop, serveSave } from "./readAheadLoop"
import { type SaveMessage, savePatienceMs } from "./readAheadSave"
import { writeShardFiles } from "./shardFile"

const data = workerData as LoopData
try {
  readAheadLoop(data, contentHash, fileWork, workIsJson, workSummary)
  serveSave(
    data,
    savePatienceMs,
    () => receiveMessageOnPort(data.port)?.message as SaveMessage | undefined,
    (message) => writeShardFiles(message.modelsDir, message.shards, message.build),
    (message) => message.last
  )
} finally {
  // Whatever ended this thread, the reader is not left waiting for a save it would not do.
  abandonSave(data)
  data.port.close()
}
