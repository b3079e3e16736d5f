import { HttpApiBuilder } from "@effect/platform"
import { lsModels } from "../commands/listModels"
import { modelLineage } from "../commands/modelLineage"
import { modelShow } from "../commands/modelShow"
import { ModelLineageOutput, LsOutput } from "../schemas/inspect"
import { ModelShowOutput } from "../schemas/lineage"
import { ServeApi } from "./api"
import { answer, answerWatched } from "./respond"

/** GET /api/v1/models, /models/{model}, /lineage/{model}: `pcli ls`, `pcli show <model>`, `pcli lineage <model>`. */
export const ModelRoutes = HttpApiBuilder.group(ServeApi, "models", (handlers) =>
  handlers
    .handle("list", () => answerWatched("models", LsOutput, lsModels([])))
    .handle("show", ({ path }) => answer(ModelShowOutput, modelShow(path.model)))
    .handle("lineage", ({ path }) => answerWatched(`lineage/${path.model}`, ModelLineageOutput, modelLineage({ model: path.model, column: undefined, direction: "both", depth: undefined })))
)
