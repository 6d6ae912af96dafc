/** The part of `fs-native-extensions` (no types of its own) the process lock uses. */
declare module 'fs-native-extensions' {
  /** Takes an advisory lock on the whole file (exclusive unless `shared`) without waiting: false when another holds it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  export function tryLock(fd: number, offset: number, length: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number, offset?: number, length?: number): void;
}
