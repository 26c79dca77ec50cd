import food from "../../kv-seed/world/autotools/tools/food.tools.json";
import game from "../../kv-seed/world/autotools/tools/game.tools.json";
import autotoolsTmdb from "../../kv-seed/world/autotools/tools/tmdb.tools.json";
import weather from "../../kv-seed/world/autotools/tools/weather.tools.json";
import demoTmdbRecords from "../../kv-seed/world/demo-records/tmdb.json";
import restbenchTmdb from "../../kv-seed/world/restbench-tmdb/openapi.json";
import { mountAutotools, mountOpenApi, SimulatedWorld } from "./index";
import { TmdbRecordSet } from "./records";

// One world per isolate: handed-out identifiers live in it, so it must outlive single requests.
// Built on first use rather than at module load, keeping the parsing out of Worker startup.
let world: SimulatedWorld | undefined;

function theWorld(): SimulatedWorld {
  if (world !== undefined) return world;
  // Both TMDB mounts search and serve the same demo records, so an id means one thing in either.
  const records = new TmdbRecordSet(demoTmdbRecords);
  world = new SimulatedWorld([
    mountOpenApi("/tmdb", restbenchTmdb, { records }),
    mountAutotools("/autotools/food", food),
    mountAutotools("/autotools/weather", weather),
    mountAutotools("/autotools/tmdb", autotoolsTmdb, { records }),
    mountAutotools("/autotools/game", game),
  ]);
  return world;
}

/**
 * The simulated world as a Worker: RestBench TMDB at /tmdb, AutoTools at /autotools/{domain}; the
 * TMDB mounts answer searches and movie/person/TV pages from the demo records.
 */
export default {
  async fetch(request: Request): Promise<Response> {
    return theWorld().handle(request);
  },
};
