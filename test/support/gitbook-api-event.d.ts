/**
 * `@gitbook/api`'s declarations import their own files without extensions, which TypeScript's
 * node16 resolution cannot follow from the package's entry point (a `"type": "module"` package):
 * its `Event` union is lost. This gives it back, from the file that declares it, so that tests
 * written against the platform's runtime types read `import type { Event } from '@gitbook/api'`.
 */
import type { Event as PlatformEvent } from '../../node_modules/@gitbook/api/dist/client';

declare module '@gitbook/api' {
  export type Event = PlatformEvent;
}
