import { eventUser, presentedEvent, usersNamedBy, type EventUser } from './integration.event-payloads';

const base = { eventId: 'e1', installationId: 'i1' };
const ada: EventUser = { object: 'user', id: 'ada', displayName: 'Ada', urls: { location: 'https://docs.example.com/v1/users/ada' } };
const users = new Map([['ada', ada]]);

describe('integration events as integrations receive them', () => {
  it('names the users of updatedBy as the platform’s users, those who no longer exist left out', () => {
    expect(
      presentedEvent({ ...base, type: 'space_content_updated', spaceId: 's1', revisionId: 'r1', updatedBy: ['ada', 'gone'] }, users),
    ).toEqual({ ...base, type: 'space_content_updated', spaceId: 's1', revisionId: 'r1', updatedBy: [ada] });
  });

  it('reads updatedBy kept as one user id, or as null, as a list', () => {
    expect(
      presentedEvent({ ...base, type: 'space_content_updated', spaceId: 's1', revisionId: 'r1', updatedBy: 'ada' }, users).updatedBy,
    ).toEqual([ada]);
    expect(
      presentedEvent({ ...base, type: 'space_content_updated', spaceId: 's1', revisionId: 'r1', updatedBy: null }, users).updatedBy,
    ).toEqual([]);
  });

  it('asks for the users updatedBy names, however it was kept', () => {
    expect(usersNamedBy({ ...base, type: 'space_content_updated', updatedBy: 'ada' })).toEqual(['ada']);
    expect(usersNamedBy({ ...base, type: 'space_content_updated', updatedBy: ['ada', 'otto'] })).toEqual(['ada', 'otto']);
    expect(usersNamedBy({ ...base, type: 'installation_setup', updatedBy: ['ada'] })).toEqual([]);
  });

  it('leaves out members kept as null: a first setup has no previous', () => {
    expect(presentedEvent({ ...base, type: 'space_installation_setup', spaceId: 's1', status: 'active', previous: null }, users)).toEqual({
      ...base,
      type: 'space_installation_setup',
      spaceId: 's1',
      status: 'active',
    });
  });

  it('gives the deletions kept without previous an empty one', () => {
    for (const type of ['installation_deleted', 'space_installation_deleted', 'site_installation_deleted'])
      expect(presentedEvent({ ...base, type }, users).previous).toEqual({});
  });

  it('names the reply of comment_reply_created commentReplyId, as kept before', () => {
    expect(
      presentedEvent(
        { ...base, type: 'comment_reply_created', spaceId: 's1', commentId: 'c1', replyId: 'r1', changeRequestId: null },
        users,
      ),
    ).toEqual({ ...base, type: 'comment_reply_created', spaceId: 's1', commentId: 'c1', commentReplyId: 'r1' });
  });

  it('gives a site_view recorded before visitors were kept an empty visitor and referrer, its claims kept', () => {
    expect(
      presentedEvent(
        {
          ...base,
          type: 'site_view',
          siteId: 'site1',
          spaceId: 's1',
          pageId: null,
          url: 'https://docs.example.com/',
          visitor: { claims: { plan: 'pro' } },
        },
        users,
      ),
    ).toEqual({
      ...base,
      type: 'site_view',
      siteId: 'site1',
      spaceId: 's1',
      url: 'https://docs.example.com/',
      referrer: '',
      visitor: { claims: { plan: 'pro' }, anonymousId: '', cookies: {}, userAgent: '', ip: '' },
    });
  });

  it('keeps a visitor as it was made', () => {
    const visitor = { anonymousId: 'a1', cookies: {}, userAgent: 'UA', ip: '203.0.113.0', claims: {} };
    expect(
      presentedEvent(
        { ...base, type: 'site_view', siteId: 'site1', spaceId: 's1', url: 'u', referrer: 'https://example.com/', visitor },
        users,
      ),
    ).toMatchObject({ visitor, referrer: 'https://example.com/' });
  });

  it('presents a user without their e-mail address', () => {
    expect(
      eventUser({ id: 'ada', displayName: 'Ada', email: 'ada@example.com', urls: { location: 'https://x/v1/users/ada' } } as never),
    ).toEqual({ object: 'user', id: 'ada', displayName: 'Ada', urls: { location: 'https://x/v1/users/ada' } });
  });
});
