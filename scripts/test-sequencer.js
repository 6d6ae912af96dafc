'use strict';
/**
 * The order Jest runs the test files in (jest.config.js `testSequencer`): its own, except for files
 * it has no duration for yet. Jest runs those first, largest file first; here the end-to-end suites
 * among them go before the unit specs. Its durations come from its cache, which a clean clone does
 * not have, and file size says little about a suite's length: a one-line file may run a whole
 * generated matrix against the service while a long spec runs in a second. Started last, the long
 * suites left one worker running them alone while the other had nothing left; started first, the
 * short specs fill in at the end.
 */
const Sequencer = require('@jest/test-sequencer').default;

const isEndToEnd = (test) => /\.e2e\.[cm]?[jt]s$/.test(test.path);

class EndToEndFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const failed = sorted.filter((test) => this.hasFailed(test));
    const untimed = sorted.filter((test) => !this.hasFailed(test) && test.duration == null);
    const timed = sorted.filter((test) => !this.hasFailed(test) && test.duration != null);
    return [...failed, ...untimed.filter(isEndToEnd), ...untimed.filter((test) => !isEndToEnd(test)), ...timed];
  }
}

module.exports = EndToEndFirst;
