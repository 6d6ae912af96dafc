import { inflateSync } from 'fflate';
import { deflatedZeros } from './zip-bomb';

describe('deflatedZeros (spec support)', () => {
  it('is a deflate stream of 1 + 258 × repeats zero bytes', () => {
    const inflated = inflateSync(deflatedZeros(1000));
    expect(inflated.length).toBe(1 + 258 * 1000);
    expect(inflated.every((byte) => byte === 0)).toBe(true);
  });
});
