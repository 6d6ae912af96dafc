/** What every benchmark reads from its environment, and its seeded randomness. */

/** A finite number from the environment variable `name` that `accepts`, else an error saying `rule`; `fallback` when it is unset. */
function numberSetting(name: string, fallback: number, accepts: (value: number) => boolean, rule: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !accepts(value)) throw new Error(`${name} must be ${rule}, got '${raw}'`);
  return value;
}

/** A positive number from the environment variable `name`, or `fallback` when it is unset. */
export function positive(name: string, fallback: number): number {
  return numberSetting(name, fallback, (value) => value > 0, 'a positive number');
}

/** A positive whole number from the environment variable `name`, or `fallback` when it is unset. */
export function positiveInteger(name: string, fallback: number): number {
  const value = positive(name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got '${value}'`);
  return value;
}

/** A number ≥ 0 from the environment variable `name` (a warm-up may be none), or `fallback` when it is unset. */
export function nonNegative(name: string, fallback: number): number {
  return numberSetting(name, fallback, (value) => value >= 0, 'a number ≥ 0');
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
