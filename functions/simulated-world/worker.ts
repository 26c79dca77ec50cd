import food from "../../kv-seed/world/autotools/tools/food.tools.json";
import game from "../../kv-seed/world/autotools/tools/game.tools.json";
import autotoolsTmdb from "../../kv-seed/world/autotools/tools/tmdb.tools.json";
import weather from "../../kv-seed/world/autotools/tools/weather.tools.json";
import restbenchTmdb from "../../kv-seed/world/restbench-tmdb/openapi.json";
import { mountAutotools, mountOpenApi, SimulatedWorld } from "./index";

// One world per isolate: handed-out identifiers live in it, so it must outlive single requests.
// Built on first use rather than at module load, keeping the parsing out of Worker startup.
let world: SimulatedWorld | undefined;

function theWorld(): SimulatedWorld {
  world ??= new SimulatedWorld([
    mountOpenApi("/tmdb", restbenchTmdb),
    mountAutotools("/autotools/food", food),
    mountAutotools("/autotools/weather", weather),
    mountAutotools("/autotools/tmdb", autotoolsTmdb),
    mountAutotools("/autotools/game", game),
  ]);
  return world;
}

/** The simulated world as a Worker: RestBench TMDB at /tmdb, AutoTools at /autotools/{domain}. */
export default {
  async fetch(request: Request): Promise<Response> {
    return theWorld().handle(request);
  },
};
