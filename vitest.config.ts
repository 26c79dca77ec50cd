import { defineConfig } from "vitest/config";

/**
 * Test files that run runaway and memory-hungry programs in local workerd. They run as a group of
 * their own, one file at a time, after everything else: on a 2-core machine, an allocation bomb in
 * a program isolate while other test files load both cores has livelocked workerd's V8 (its one
 * worker thread parked waiting for a garbage collection, the main thread pumping sweeper tasks for
 * ever; README, "Tests"). Alone they have never hung here. Most of them now run programs in the
 * program host, where the watchdog replaces a livelocked process; they also run programs in the
 * service's own process (the deployed placement), where it would still hold the test's service.
 */
const RUNAWAY_PROGRAMS = ["test/integration/containment*.test.ts", "test/unit/sandbox-workerd.unit.test.ts"];

export default defineConfig({
  test: {
    globalSetup: ["test/helpers/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "service", include: ["test/**/*.test.ts"], exclude: RUNAWAY_PROGRAMS, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "runaway programs", include: RUNAWAY_PROGRAMS, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
