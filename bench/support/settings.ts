/** What every benchmark reads from its environment, and its seeded randomness. */

/** A positive number from the environment variable `name`, or `fallback` when it is unset. */
export function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got '${raw}'`);
  return value;
}

/** A positive whole number from the environment variable `name`, or `fallback` when it is unset. */
export function positiveInteger(name: string, fallback: number): number {
  const value = positive(name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got '${value}'`);
  return value;
}

/** A number ≥ 0 from the environment variable `name` (a warm-up may be none), or `fallback` when it is unset. */
export function nonNegative(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0, got '${raw}'`);
  return value;
}

/** mulberry32: small, fast and seedable (Math.random cannot be seeded), so every run generates the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
