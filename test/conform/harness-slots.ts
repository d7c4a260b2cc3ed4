/** Two harness JVMs at a time: the machines have 2 cores, and more only make each start slower. */
let freeSlots = 2;
const waiting: (() => void)[] = [];

/** Run `task` when one of the two harness slots of this test file is free. */
export async function inSlot<T>(task: () => Promise<T>): Promise<T> {
  if (freeSlots > 0) freeSlots--;
  else await new Promise<void>((resume) => waiting.push(resume));
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else freeSlots++;
  }
}
