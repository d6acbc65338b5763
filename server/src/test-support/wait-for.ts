/** Reads until the answer is not null (every 50 ms, `attempts` times at most), for what another part of the server writes after the answer. */
export const waitFor = async <T>(read: () => Promise<T | null> | T | null, attempts = 100): Promise<T> => {
  for (let i = 0; i < attempts; i++) {
    const value = await read();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out waiting');
};
