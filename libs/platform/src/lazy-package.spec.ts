import { lazyPackage } from './lazy-package';

describe('lazyPackage', () => {
  it('loads nothing until the first use', () => {
    const load = jest.fn(() => ({ name: 'pkg' }));
    lazyPackage(load);
    expect(load).not.toHaveBeenCalled();
  });

  it('loads once and answers the same value at every later use', () => {
    const load = jest.fn(() => ({ name: 'pkg' }));
    const pkg = lazyPackage(load);
    const first = pkg();
    expect(pkg()).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('keeps a falsy value loaded', () => {
    const load = jest.fn(() => undefined);
    const pkg = lazyPackage(load);
    pkg();
    pkg();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('loads again after a failed load, so a missing package is reported at each use', () => {
    const load = jest.fn(() => {
      throw new Error('Cannot find module');
    });
    const pkg = lazyPackage(load);
    expect(() => pkg()).toThrow('Cannot find module');
    expect(() => pkg()).toThrow('Cannot find module');
    expect(load).toHaveBeenCalledTimes(2);
  });
});
