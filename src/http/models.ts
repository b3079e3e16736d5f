import { HttpApiBuilder } from "@effect/platform"
import { lineage } from "../commands/lineage"
import { listModels } from "../commands/listModels"
import { modelShow } from "../commands/modelShow"
import { LineageOutput, ListModelsOutput, ModelShowOutput } from "../schemas/lineage"
import { ServeApi } from "./api"
import { answer } from "./respond"

/** GET /api/v1/models, /models/{model}, /lineage/{model}: `pcli ls`, `pcli show <model>`, `pcli lineage <model>`. */
export const ModelRoutes = HttpApiBuilder.group(ServeApi, "models", (handlers) =>
  handlers
    .handle("list", () => answer(ListModelsOutput, listModels))
    .handle("show", ({ path }) => answer(ModelShowOutput, modelShow(path.model)))
    .handle("lineage", ({ path }) => answer(LineageOutput, lineage(path.model)))
)
