import { loadConfig } from '#platform/config';
import { EventStoreInputError } from './errors';
import { DEFAULT_BATCH_LIMIT_BYTES, batchLimit, serializeBatch } from './validation';

const id = () => '00000000-0000-4000-8000-000000000000';
/** An event whose JSON (data + metadata) is exactly `bytes` long: `{"t":"…"}` plus `{}`. */
const sized = (bytes: number, char = 'x') => ({ type: 'T', data: { t: char.repeat(bytes - 10) }, metadata: {} });

describe('batch limit', () => {
  it('counts the JSON of data and metadata of the whole batch, in UTF-8 bytes', () => {
    expect(() => serializeBatch([sized(600), sized(400)], id, 1000)).not.toThrow();
    expect(() => serializeBatch([sized(600), sized(401)], id, 1000)).toThrow(EventStoreInputError);
    // 'é' is two bytes in UTF-8: 300 of them are 600 bytes, not 300.
    expect(() => serializeBatch([{ type: 'T', data: { t: 'é'.repeat(300) }, metadata: {} }], id, 500)).toThrow(EventStoreInputError);
    expect(() => serializeBatch([{ type: 'T', data: {}, metadata: { pad: 'x'.repeat(1000) } }], id, 1000)).toThrow(EventStoreInputError);
  });

  it('names the limit and the size in its message', () => {
    expect(() => serializeBatch([sized(600), sized(600)], id, 1000)).toThrow(
      "the batch of 2 events is 1200 bytes of JSON, over the event store's batch limit of 1000 bytes (EVENT_BATCH_LIMIT_BYTES)",
    );
    expect(() => serializeBatch([sized(1200)], id, 1000)).toThrow(/^event 'T' is 1200 bytes of JSON, over .* 1000 bytes/);
  });

  it('defaults to a margin under KurrentDB’s 1 MiB maximum append size, the same default as the configuration', () => {
    expect(DEFAULT_BATCH_LIMIT_BYTES).toBeLessThan(1024 * 1024);
    expect(DEFAULT_BATCH_LIMIT_BYTES).toBeGreaterThanOrEqual(900 * 1024);
    expect(() => serializeBatch([sized(DEFAULT_BATCH_LIMIT_BYTES)], id)).not.toThrow();
    expect(() => serializeBatch([sized(DEFAULT_BATCH_LIMIT_BYTES + 1)], id)).toThrow(EventStoreInputError);
    expect(loadConfig({}).eventBatchLimitBytes).toBe(DEFAULT_BATCH_LIMIT_BYTES);
    expect(loadConfig({ EVENT_BATCH_LIMIT_BYTES: '2000000' }).eventBatchLimitBytes).toBe(2_000_000);
    expect(() => loadConfig({ EVENT_BATCH_LIMIT_BYTES: '10' })).toThrow(/EVENT_BATCH_LIMIT_BYTES/);
  });

  it('accepts only a positive integer limit', () => {
    expect(batchLimit(undefined)).toBe(DEFAULT_BATCH_LIMIT_BYTES);
    expect(batchLimit(5000)).toBe(5000);
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => batchLimit(bad)).toThrow(EventStoreInputError);
  });
});
