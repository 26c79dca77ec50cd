/** Rejection used by the deadline guard; callers check the signal, so this is never shown. */
const timedOut = (): DOMException => new DOMException("timed out", "TimeoutError");

/**
 * Races each step against the abort signal, so a fetcher or body stream that ignores the signal
 * still cannot hold a call past its timeout.
 */
export function guardWith(signal: AbortSignal): <T>(step: Promise<T>) => Promise<T> {
  return <T>(step: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        step.catch(() => undefined);
        reject(timedOut());
        return;
      }
      const onAbort = (): void => reject(timedOut());
      signal.addEventListener("abort", onAbort, { once: true });
      step.then(
        (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
}
