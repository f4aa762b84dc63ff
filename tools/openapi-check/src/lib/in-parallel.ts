/** Runs the tasks, at most `width` at a time. */
export async function inParallel(tasks: Array<() => Promise<unknown>>, width: number): Promise<void> {
  const queue = [...tasks];
  const worker = async () => {
    for (let task = queue.shift(); task; task = queue.shift()) await task();
  };
  await Promise.all(Array.from({ length: width }, worker));
}
