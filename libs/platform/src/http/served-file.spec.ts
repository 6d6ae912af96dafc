import { isInertContentType, servedFileHeaders } from './served-file';

const file = (contentType: string, name = 'file') => servedFileHeaders({ name, contentType, size: 3 });

describe('served files', () => {
  it.each(['image/png', 'IMAGE/JPEG', 'application/pdf', 'text/plain; charset=utf-8', 'video/mp4', 'audio/ogg'])(
    'shows %s inline',
    (contentType) => {
      expect(isInertContentType(contentType)).toBe(true);
      expect(file(contentType)['content-disposition']).toMatch(/^inline; /);
    },
  );

  it.each([
    'text/html',
    'image/svg+xml',
    'application/xhtml+xml',
    'application/xml',
    'text/xml',
    'application/mathml+xml',
    'text/xsl',
    'application/rdf+xml',
    'multipart/x-mixed-replace; boundary=x',
    'text/javascript',
    'text/css',
    'application/octet-stream',
    'application/x-made-up',
    'image/png, text/html',
  ])('serves %s as an attachment', (contentType) => {
    expect(isInertContentType(contentType)).toBe(false);
    expect(file(contentType)['content-disposition']).toMatch(/^attachment; /);
  });

  it('always says nosniff and sandboxes the file', () => {
    expect(file('image/png')).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'content-length': '3',
    });
  });

  it('declares a malformed content type as application/octet-stream, an attachment', () => {
    expect(file('text/plain\r\nSet-Cookie: a=b')).toMatchObject({
      'content-type': 'application/octet-stream',
      'content-disposition': expect.stringMatching(/^attachment; /),
    });
    expect(file('not a type')['content-type']).toBe('application/octet-stream');
  });

  it('names the file in ASCII and in UTF-8, escaping what would end or break the parameter', () => {
    expect(file('image/png', 'résumé "final".png')['content-disposition']).toBe(
      `inline; filename="r_sum_ _final_.png"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.png`,
    );
    expect(file('image/png', "it's (1)*.png")['content-disposition']).toBe(
      `inline; filename="it's (1)*.png"; filename*=UTF-8''it%27s%20%281%29%2A.png`,
    );
    expect(file('image/png', 'broken\ud800.png')['content-disposition']).toBe('inline; filename="broken_.png"');
  });
});
