/**
 * Long synchronous stretches (an import's accept phase, connecting blocks whose scripts
 * are assumed valid) would otherwise run on microtasks alone and never let the event loop
 * poll: front-ends' forwarded calls, their start-up messages, and SIGINT/SIGTERM would all
 * wait for the whole import. A turn is taken once this much time has passed since the last.
 */
const TURN_EVERY_MS = 25;

let lastTurn = performance.now();

/** Gives the event loop a turn when the thread has run on for TURN_EVERY_MS; otherwise resolves at once. */
export function eventLoopTurn(): Promise<void> | undefined {
  const now = performance.now();
  if (now - lastTurn < TURN_EVERY_MS) return undefined;
  return new Promise<void>((resolve) =>
    setImmediate(() => {
      lastTurn = performance.now();
      resolve();
    }),
  );
}
