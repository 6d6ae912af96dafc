import { MAX_QUERY_TERMS, queryTerms, SpaceSearchIndex, type SearchablePage } from './space-search-index';
import { SNIPPET_LENGTH } from './text';

function page(id: string, overrides: Partial<SearchablePage> = {}): SearchablePage {
  return {
    id,
    title: `Page ${id}`,
    path: id,
    sections: [{ id: 'intro', title: 'Introduction', body: 'Nothing to see here.' }],
    ...overrides,
  };
}

function pageIds(index: SpaceSearchIndex, query: string): string[] {
  return index.search(query).map((hit) => hit.id);
}

describe('SpaceSearchIndex', () => {
  describe('ranking', () => {
    it('ranks a page whose title matches above a page whose body matches', () => {
      const index = SpaceSearchIndex.build([
        page('body', {
          title: 'Getting started',
          sections: [{ id: 'steps', title: 'Steps', body: 'Run the installation script, then check the installation log.' }],
        }),
        page('title', { title: 'Installation', sections: [{ id: 'steps', title: 'Steps', body: 'Run the script and check the log.' }] }),
      ]);

      expect(pageIds(index, 'installation')).toEqual(['title', 'body']);
    });

    it('numbers the hits from 1 in descending score', () => {
      const index = SpaceSearchIndex.build([
        page('a', { title: 'Webhooks' }),
        page('b', { sections: [{ id: 'x', title: 'Events', body: 'Webhooks deliver events.' }] }),
        page('c', { sections: [{ id: 'x', title: 'Webhooks', body: 'Webhooks deliver events; webhooks retry.' }] }),
      ]);

      const hits = index.search('webhooks');

      expect(hits.map((hit) => hit.rank)).toEqual([1, 2, 3]);
      expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((x, y) => y - x));
    });

    it('returns at most `limit` pages', () => {
      const index = SpaceSearchIndex.build(Array.from({ length: 30 }, (_, i) => page(`p${i}`, { title: `Billing ${i}` })));

      expect(index.search('billing', { limit: 5 })).toHaveLength(5);
    });

    it('ranks a section matching more of the terms higher when no section matches them all', () => {
      const index = SpaceSearchIndex.build([
        page('one', { sections: [{ id: 's', title: 'Tokens', body: 'Rotate tokens regularly.' }] }),
        page('two', { sections: [{ id: 's', title: 'Tokens', body: 'Rotate tokens and revoke sessions.' }] }),
      ]);

      expect(pageIds(index, 'tokens sessions zzzzqqq')).toEqual(['two', 'one']);
    });
  });

  describe('matching', () => {
    const index = SpaceSearchIndex.build([
      page('install', {
        title: 'Installation guide',
        sections: [{ id: 'docker', title: 'With Docker', body: 'Pull the image and start the container.' }],
      }),
      page('other', {
        title: 'Authentication',
        sections: [{ id: 'tokens', title: 'Tokens', body: 'Create an API token in the settings.' }],
      }),
      page('cafe', { title: 'Café menu', sections: [{ id: 'drinks', title: 'Drinks', body: 'Espresso and more.' }] }),
    ]);

    it('tolerates a typo: `instalation` finds `installation`', () => {
      expect(pageIds(index, 'instalation')).toEqual(['install']);
    });

    it('matches a prefix: `instal` finds `installation`', () => {
      expect(pageIds(index, 'instal')).toEqual(['install']);
    });

    it('requires every term (AND) when some section has them all', () => {
      expect(pageIds(index, 'installation docker')).toEqual(['install']);
    });

    it('falls back to any term (OR) when no section has them all', () => {
      expect(pageIds(index, 'docker tokens').sort()).toEqual(['install', 'other']);
    });

    it('ignores case and diacritics', () => {
      expect(pageIds(index, 'CAFE')).toEqual(['cafe']);
      expect(pageIds(index, 'authéntication')).toEqual(['other']);
    });

    it('finds nothing for a word that is not there', () => {
      expect(index.search('kubernetes')).toEqual([]);
    });
  });

  describe('sections and snippets', () => {
    const longBody = `${'Lorem ipsum dolor sit amet. '.repeat(30)}The webhook secret signs every delivery. ${'Consectetur adipiscing elit. '.repeat(30)}`;
    const index = SpaceSearchIndex.build([
      {
        id: 'hooks',
        title: 'Webhooks',
        path: 'integrations/webhooks',
        description: 'Receive events over HTTP.',
        sections: [
          { id: '', title: '', body: 'Webhooks push events to your server.' },
          { id: 'security', title: 'Security', body: longBody },
          { id: 'retries', title: 'Retries', body: 'Failed deliveries are retried with backoff.' },
        ],
      },
    ]);

    it('answers a page with its matching sections, each with its anchor path', () => {
      const [hit] = index.search('secret');

      expect(hit).toMatchObject({
        id: 'hooks',
        title: 'Webhooks',
        path: 'integrations/webhooks',
        description: 'Receive events over HTTP.',
        rank: 1,
      });
      expect(hit.sections.map((section) => [section.id, section.title, section.path])).toEqual([
        ['security', 'Security', 'integrations/webhooks#security'],
      ]);
    });

    it('gives a section without an id the page path', () => {
      const [hit] = index.search('server');

      expect(hit.sections.map((section) => section.path)).toEqual(['integrations/webhooks']);
    });

    it('cuts a long body to a snippet around the first match', () => {
      const [section] = index.search('secret')[0].sections;

      expect(section.body.length).toBeLessThanOrEqual(SNIPPET_LENGTH);
      expect(section.body).toContain('The webhook secret signs every delivery.');
      expect(section.body.startsWith('…')).toBe(true);
      expect(section.body.endsWith('…')).toBe(true);
    });

    it('snippets the start of the body when only the title matched', () => {
      const [section] = index.search('security')[0].sections;

      expect(section.id).toBe('security');
      expect(section.body.startsWith('Lorem ipsum dolor sit amet.')).toBe(true);
      expect(section.body.endsWith('…')).toBe(true);
      expect(section.body.length).toBeLessThanOrEqual(SNIPPET_LENGTH);
    });

    it('keeps a short body whole', () => {
      const sections = index.search('backoff')[0].sections;

      expect(sections.map((section) => section.body)).toEqual(['Failed deliveries are retried with backoff.']);
    });

    it('lists the sections of a page matched by its title alone', () => {
      const [hit] = index.search('webhooks');

      expect(hit.sections.length).toBeGreaterThan(0);
      expect(hit.sections.length).toBeLessThanOrEqual(3);
    });

    it('finds a page by its description', () => {
      expect(pageIds(index, 'http')).toEqual(['hooks']);
    });
  });

  describe('pages left out', () => {
    it('does not index pages marked noIndex', () => {
      const index = SpaceSearchIndex.build([
        page('hidden', { title: 'Secret roadmap', noIndex: true }),
        page('shown', { title: 'Public roadmap' }),
      ]);

      expect(pageIds(index, 'roadmap')).toEqual(['shown']);
      expect(index.size).toBe(1);
    });

    it('removes a page upserted with noIndex', () => {
      const index = SpaceSearchIndex.build([page('p', { title: 'Roadmap' })]);

      index.upsert(page('p', { title: 'Roadmap', noIndex: true }));

      expect(index.search('roadmap')).toEqual([]);
      expect(index.size).toBe(0);
    });
  });

  describe('updates', () => {
    it('replaces the sections of an upserted page', () => {
      const index = SpaceSearchIndex.build([page('p', { sections: [{ id: 'a', title: 'Old', body: 'Legacy quota rules.' }] })]);

      index.upsert(page('p', { sections: [{ id: 'b', title: 'New', body: 'Current billing rules.' }] }));

      expect(index.search('legacy')).toEqual([]);
      expect(index.search('billing')[0].sections.map((section) => section.id)).toEqual(['b']);
      expect(index.size).toBe(1);
    });

    it('adds a page upserted for the first time', () => {
      const index = SpaceSearchIndex.build([]);

      index.upsert(page('p', { title: 'Changelog' }));

      expect(pageIds(index, 'changelog')).toEqual(['p']);
    });

    it('removes a page', () => {
      const index = SpaceSearchIndex.build([page('a', { title: 'Alerts' }), page('b', { title: 'Alerting rules' })]);

      index.remove('a');

      expect(pageIds(index, 'alert')).toEqual(['b']);
      expect(index.size).toBe(1);
    });

    it('ignores the removal of a page it does not hold', () => {
      const index = SpaceSearchIndex.build([page('a', { title: 'Alerts' })]);

      index.remove('missing');

      expect(pageIds(index, 'alerts')).toEqual(['a']);
    });

    it('forgets the words of replaced pages, also as prefixes', () => {
      const index = SpaceSearchIndex.build([page('stable', { title: 'Stable page' })]);
      const words = (round: number) => Array.from({ length: 20 }, (_, k) => `w${round}x${k}`).join(' ');
      // Enough replaced words to sweep them from the index more than once.
      for (let round = 0; round < 200; round++)
        index.upsert(page('churn', { sections: [{ id: 's', title: 'Words', body: words(round) }] }));

      expect(index.search('w0x1')).toEqual([]);
      expect(index.search('w0x')).toEqual([]);
      expect(pageIds(index, 'w199x19')).toEqual(['churn']);
      expect(pageIds(index, 'w199x')).toEqual(['churn']);
      expect(pageIds(index, 'stable')).toEqual(['stable']);
    });

    it('indexes every word of pages added after removed ones were swept', () => {
      // Words at least 3 edits apart, none a prefix of another: each is found only where it is.
      const letter = (n: number) => String.fromCharCode(97 + n);
      const markers = Array.from({ length: 40 }, (_, i) => `m${letter(i % 26).repeat(3)}${letter(Math.floor(i / 26)).repeat(3)}`);
      const filler = (i: number) => Array.from({ length: 50 }, (_, k) => `filler${i}x${k}`).join(' ');
      const index = SpaceSearchIndex.build(
        markers.map((marker, i) => page(`f${i}`, { sections: [{ id: 's', title: 'Filler', body: `${marker} ${filler(i)}` }] })),
      );
      // Half removed: enough dead postings to sweep them, renumbering the sections left.
      for (let i = 0; i < 20; i++) index.remove(`f${i}`);

      index.upsert(page('all', { sections: [{ id: 's', title: 'Markers', body: markers.join(' ') }] }));

      markers.forEach((marker, i) => expect(pageIds(index, marker).sort()).toEqual(i < 20 ? ['all'] : ['all', `f${i}`]));
    });

    it('answers the same after many updates as a fresh build of the same pages', () => {
      const pages = Array.from({ length: 60 }, (_, i) =>
        page(`p${i}`, {
          title: `Topic ${i % 7} guide`,
          sections: [{ id: 's', title: 'Body', body: `Words about topic ${i % 5} and quota ${i}.` }],
        }),
      );
      const updated = SpaceSearchIndex.build(pages);
      // Enough churn to sweep dead postings more than once.
      for (let round = 0; round < 30; round++) for (const p of pages) updated.upsert(p);
      for (const p of pages.slice(40)) updated.remove(p.id);
      const fresh = SpaceSearchIndex.build(pages.slice(0, 40));

      for (const query of ['topic', 'guide', 'quota 12', 'words topic 3', 'gui']) {
        expect(updated.search(query)).toEqual(fresh.search(query));
      }
      expect(updated.size).toBe(40);
      expect(updated.sectionCount).toBe(40);
    });
  });

  describe('queries', () => {
    const index = SpaceSearchIndex.build([page('p', { title: 'Anything at all' })]);

    it.each(['', '   ', '\t\n', '?!…()[]{}*+.^$|\\'])('answers nothing to a query without terms (%j)', (query) => {
      expect(index.search(query)).toEqual([]);
    });

    it('trims and collapses whitespace', () => {
      expect(pageIds(index, '   anything \n\t  at   ')).toEqual(['p']);
    });

    it('keeps at most MAX_QUERY_TERMS distinct terms', () => {
      const terms = queryTerms(Array.from({ length: 40 }, (_, i) => `term${i % 20}`).join(' '));

      expect(terms).toHaveLength(MAX_QUERY_TERMS);
      expect(new Set(terms).size).toBe(MAX_QUERY_TERMS);
    });

    it('answers hostile queries without failing', () => {
      for (const query of [
        'a'.repeat(512),
        '.*'.repeat(256),
        'a b c d e f g h i j k l m n o p q r s t u v w x y z',
        '(?:a+)+$'.repeat(64),
      ]) {
        expect(Array.isArray(index.search(query))).toBe(true);
      }
    });
  });

  describe('size', () => {
    it('counts the indexed pages, a page without sections included', () => {
      const index = SpaceSearchIndex.build([page('a'), page('b', { title: 'Empty page', sections: [] })]);

      expect(index.size).toBe(2);
      expect(pageIds(index, 'empty')).toEqual(['b']);
      expect(index.search('empty')[0].sections).toEqual([]);
    });
  });
});
