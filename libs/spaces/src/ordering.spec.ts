import { keyBetween, positionAmong } from './ordering';

describe('sibling ordering', () => {
  it('always finds a key strictly between two keys, however often the same gap is split', () => {
    let low = '';
    const high = keyBetween('', null);
    for (let i = 0; i < 200; i++) {
      const next = keyBetween(low, high);
      expect(next > low && next < high).toBe(true);
      expect(next.endsWith('0')).toBe(false);
      low = next;
    }
    let before = high;
    for (let i = 0; i < 200; i++) {
      const next = keyBetween('', before);
      expect(next < before).toBe(true);
      before = next;
    }
  });

  it('places at the end, before, after, or between neighbours; unknown siblings are 400', () => {
    const siblings = [
      { id: 'a', position: 'F' },
      { id: 'b', position: 'V' },
    ];
    expect(positionAmong(siblings, undefined, 'space') > 'V').toBe(true);
    const first = positionAmong(siblings, { before: 'a' }, 'space');
    expect(first < 'F').toBe(true);
    const middle = positionAmong(siblings, { after: 'a' }, 'space');
    expect(middle > 'F' && middle < 'V').toBe(true);
    expect(positionAmong(siblings, { after: 'a', before: 'b' }, 'space')).toBe(middle);
    expect(() => positionAmong(siblings, { after: 'b', before: 'a' }, 'space')).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => positionAmong(siblings, { before: 'zz' }, 'space')).toThrow(expect.objectContaining({ status: 400 }));
    expect(positionAmong([], undefined, 'space')).toBe(keyBetween('', null));
  });
});
