import { HttpApiBuilder } from "@effect/platform"
import { lsModels } from "../commands/listModels"
import { modelLineage } from "../commands/modelLineage"
import { modelShow } from "../commands/modelShow"
import { ModelLineageOutput, LsOutput } from "../schemas/inspect"
import { ModelShowOutput } from "../schemas/lineage"
import { ServeApi } from "./api"
import { answer } from "./respond"

/** GET /api/v1/models, /models/{model}, /lineage/{model}: `pcli ls`, `pcli show <model>`, `pcli lineage <model>`. */
export const ModelRoutes = HttpApiBuilder.group(ServeApi, "models", (handlers) =>
  handlers
    .handle("list", () => answer(LsOutput, lsModels([])))
    .handle("show", ({ path }) => answer(ModelShowOutput, modelShow(path.model)))
    .handle("lineage", ({ path }) => answer(ModelLineageOutput, modelLineage({ model: path.model, column: undefined, direction: "both", depth: undefined })))
)
