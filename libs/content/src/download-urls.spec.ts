import { createHmac } from 'node:crypto';
import { ManualClock } from '#platform/clock';
import type { AppConfig } from '#platform/config';
import { contentUrlKey } from './content.needs';
import { ContentPresenter, DOWNLOAD_URL_LIFETIME_SECONDS } from './content.presenter';
import type { FileEntry } from './tree/tree.model';

/**
 * Signed download URLs of files: a URL of a non-public space carries an expiry and an HMAC over
 * space, revision, file and expiry; it opens that file until it expires and no other. The clock is
 * a manual one: expiry is shown by moving it, never by waiting.
 */
const t0 = new Date('2026-01-01T00:00:00.000Z');
const key = contentUrlKey('admin-token');
const file = { id: 'f1' } as FileEntry;
const config = { publicUrl: 'https://docs.example.com' } as AppConfig;

function presenterAt(clock: ManualClock): ContentPresenter {
  return new ContentPresenter(config, clock, key);
}

/** The query of a download URL as the controller reads it. */
function signedPartsOf(url: string): { expires: number; signature: string } {
  const query = new URL(url).searchParams;
  return { expires: Number(query.get('expires')), signature: query.get('signature')! };
}

describe('signed download URLs', () => {
  it('given a public space, when a download URL is made, then it carries no signature', () => {
    const url = presenterAt(new ManualClock(t0)).downloadUrl({ id: 's1', visibility: 'public' }, 'r1', file);
    expect(url).toBe('https://docs.example.com/v1/spaces/s1/content/files/f1/download?revision=r1');
  });

  it('given a private space, when a download URL is made, then it expires an hour later and is signed over space, revision, file and expiry', () => {
    const url = presenterAt(new ManualClock(t0)).downloadUrl({ id: 's1', visibility: 'private' }, 'r1', file);
    const { expires, signature } = signedPartsOf(url);
    expect(expires).toBe(t0.getTime() / 1000 + DOWNLOAD_URL_LIFETIME_SECONDS);
    expect(DOWNLOAD_URL_LIFETIME_SECONDS).toBe(3600);
    // Known answer, computed here independently of the presenter.
    expect(signature).toBe(createHmac('sha256', key).update(`s1\nr1\nf1\n${expires}`).digest('base64url'));
    expect(url.startsWith('https://docs.example.com/v1/spaces/s1/content/files/f1/download?revision=r1&expires=')).toBe(true);
  });

  it('given a fresh signed URL, when it is presented, then it is valid', () => {
    const clock = new ManualClock(t0);
    const presenter = presenterAt(clock);
    const { expires, signature } = signedPartsOf(presenter.downloadUrl({ id: 's1', visibility: 'private' }, 'r1', file));
    expect(presenter.validDownload('s1', 'r1', 'f1', expires, signature)).toBe(true);
  });

  // Mutation pinned: dropping the `expires * 1000 < now` check.
  it('given a signed URL, when it is presented after its expiry, then it is refused', () => {
    const clock = new ManualClock(t0);
    const presenter = presenterAt(clock);
    const { expires, signature } = signedPartsOf(presenter.downloadUrl({ id: 's1', visibility: 'private' }, 'r1', file));
    clock.set(new Date(t0.getTime() + DOWNLOAD_URL_LIFETIME_SECONDS * 1000 + 1));
    expect(presenter.validDownload('s1', 'r1', 'f1', expires, signature)).toBe(false);
  });

  it('given a signed URL, when it is presented at the very second it expires, then it is still valid', () => {
    const clock = new ManualClock(t0);
    const presenter = presenterAt(clock);
    const { expires, signature } = signedPartsOf(presenter.downloadUrl({ id: 's1', visibility: 'private' }, 'r1', file));
    clock.set(new Date(expires * 1000));
    expect(presenter.validDownload('s1', 'r1', 'f1', expires, signature)).toBe(true);
  });

  it('given a signed URL, when its expiry is pushed later, or it is bent to another file, revision or space, then it is refused', () => {
    const presenter = presenterAt(new ManualClock(t0));
    const { expires, signature } = signedPartsOf(presenter.downloadUrl({ id: 's1', visibility: 'private' }, 'r1', file));
    expect(presenter.validDownload('s1', 'r1', 'f1', expires + 3600, signature)).toBe(false);
    expect(presenter.validDownload('s1', 'r1', 'f2', expires, signature)).toBe(false);
    expect(presenter.validDownload('s1', 'r2', 'f1', expires, signature)).toBe(false);
    expect(presenter.validDownload('s2', 'r1', 'f1', expires, signature)).toBe(false);
  });

  it('given no expiry, no signature, a non-integer expiry, or a signature of another length, then it is refused', () => {
    const presenter = presenterAt(new ManualClock(t0));
    const { expires, signature } = signedPartsOf(presenter.downloadUrl({ id: 's1', visibility: 'private' }, 'r1', file));
    expect(presenter.validDownload('s1', 'r1', 'f1', undefined, signature)).toBe(false);
    expect(presenter.validDownload('s1', 'r1', 'f1', expires, undefined)).toBe(false);
    expect(presenter.validDownload('s1', 'r1', 'f1', expires + 0.5, signature)).toBe(false);
    expect(presenter.validDownload('s1', 'r1', 'f1', expires, signature.slice(1))).toBe(false);
    expect(presenter.validDownload('s1', 'r1', 'f1', expires, `${signature}A`)).toBe(false);
  });

  it('given a URL signed with another service’s key, then it is refused', () => {
    const clock = new ManualClock(t0);
    const other = new ContentPresenter(config, clock, contentUrlKey('another-admin-token'));
    const { expires, signature } = signedPartsOf(other.downloadUrl({ id: 's1', visibility: 'private' }, 'r1', file));
    expect(presenterAt(clock).validDownload('s1', 'r1', 'f1', expires, signature)).toBe(false);
  });
});
