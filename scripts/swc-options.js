'use strict';
/**
 * How the TypeScript sources are compiled outside `tsc`: by Jest (`@swc/jest`) and by
 * `register-ts.js` for the child processes and worker threads that tests start. Decorator metadata
 * on (Nest's injection needs it), CommonJS out.
 */
module.exports = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
