/**
 * Types for mathjs's single-file build, which the calculator worker loads because it starts several
 * times faster than the multi-module ESM build. Same version, same API as `mathjs` itself.
 */
declare module 'mathjs/lib/browser/math.js' {
  import type { MathJsInstance } from 'mathjs';

  const math: MathJsInstance;
  export default math;
}
