import { signature, verifySignature } from './tunnel-delivery';

/** Which parts of a signature header count: `t` and `v1` only, each as `key=value`. */
const SECRET = 'whsec_test_secret';
const T = 1_893_456_000;
const AT = new Date(T * 1000);
const BODY = '{"eventId":"evt_1"}';
const GOOD = signature(SECRET, T, BODY);

describe('tunnel signature header parts', () => {
  it('given the right signature under another key than v1, then it is refused', () => {
    expect(verifySignature(SECRET, `t=${T},v0=${GOOD}`, BODY, AT)).toBe(false);
  });

  it('given a part without `=` that starts like a key, then it is ignored', () => {
    expect(verifySignature(SECRET, `t=${T},t9,v1=${GOOD}`, BODY, AT)).toBe(true);
  });
});
