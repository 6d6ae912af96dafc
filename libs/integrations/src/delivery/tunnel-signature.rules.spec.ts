import { signature, verifySignature } from './tunnel-delivery';

/** How a signature header is read: the parts it must have, the parts it may repeat, and how its time is taken. */
const SECRET = 'whsec_test_secret';
const T = 1_893_456_000; // 2030-01-01T00:00:00Z
const AT = new Date(T * 1000);
const BODY = '{"eventId":"evt_1","type":"space_content_updated"}';
const GOOD = signature(SECRET, T, BODY);

describe('tunnel signature header', () => {
  it('given a header with no timestamp, then it is refused', () => {
    expect(verifySignature(SECRET, `v1=${GOOD}`, BODY, AT)).toBe(false);
  });

  it('given a header with no v1 signature, then it is refused', () => {
    expect(verifySignature(SECRET, `t=${T}`, BODY, AT)).toBe(false);
  });

  it('given a header with two timestamps, then it is refused, even when both are the signed one', () => {
    expect(verifySignature(SECRET, `t=${T},t=${T},v1=${GOOD}`, BODY, AT)).toBe(false);
  });

  it('given several v1 signatures of which one matches, wherever it stands, then it is accepted', () => {
    const other = signature('another-secret', T, BODY);
    expect(verifySignature(SECRET, `t=${T},v1=${GOOD},v1=${other}`, BODY, AT)).toBe(true);
    expect(verifySignature(SECRET, `t=${T},v1=${other},v1=${GOOD}`, BODY, AT)).toBe(true);
  });

  it('given a signature shorter than a digest, then it is refused (not an error)', () => {
    expect(verifySignature(SECRET, `t=${T},v1=${GOOD.slice(0, 10)}`, BODY, AT)).toBe(false);
    expect(verifySignature(SECRET, `t=${T},v1=`, BODY, AT)).toBe(false);
  });

  it('given now part-way through the signed second, then it counts as that second (no tolerance needed)', () => {
    expect(verifySignature(SECRET, `t=${T},v1=${GOOD}`, BODY, new Date(T * 1000 + 999), 0)).toBe(true);
  });

  it('given a signature of another body, then it is refused', () => {
    expect(verifySignature(SECRET, `t=${T},v1=${GOOD}`, `${BODY} `, AT)).toBe(false);
  });
});
