import { NO_FACTS, SpaceFactsReader } from './space-facts';
import type { SpaceFacts, SpaceFactSource } from './spaces.needs';

const source = (counts: Record<string, Partial<SpaceFacts>>, calls: string[][] = []): SpaceFactSource => ({
  async factsFor(spaceIds) {
    calls.push([...spaceIds]);
    return new Map(Object.entries(counts).filter(([id]) => spaceIds.includes(id)));
  },
});

describe('the counts a space shows that other contexts own', () => {
  it('given no source, then no space has counts (each shows zero)', async () => {
    expect(await new SpaceFactsReader([]).forSpaces(['s1'])).toEqual(new Map());
  });

  it('given one source, then its counts fill the spaces it knows, the rest of each record zero', async () => {
    const counters = new SpaceFactsReader([source({ s1: { comments: 3 } })]);
    expect(await counters.forSpaces(['s1', 's2'])).toEqual(new Map([['s1', { ...NO_FACTS, comments: 3 }]]));
  });

  it('given two sources, then their counters are merged per space', async () => {
    const comments = source({ s1: { comments: 2 } });
    const changeRequests = source({ s1: { changeRequests: 5, changeRequestsOpen: 1, changeRequestsDraft: 2 } });
    expect((await new SpaceFactsReader([comments, changeRequests]).forSpaces(['s1'])).get('s1')).toEqual({
      comments: 2,
      changeRequests: 5,
      changeRequestsOpen: 1,
      changeRequestsDraft: 2,
    });
  });

  it('asks each source once for a whole page of spaces', async () => {
    const calls: string[][] = [];
    await new SpaceFactsReader([source({}, calls)]).forSpaces(['s1', 's2', 's3']);
    expect(calls).toEqual([['s1', 's2', 's3']]);
  });
});
