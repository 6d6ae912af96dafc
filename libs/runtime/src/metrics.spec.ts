import { Metrics } from './metrics';

describe('Metrics', () => {
  const lagObservations = async (metrics: Metrics) => (await metrics.projectionApplyLag.get()).values;
  const bucket = (values: Awaited<ReturnType<typeof lagObservations>>, le: number) =>
    values.find((value) => value.metricName === 'projection_apply_lag_seconds_bucket' && value.labels.le === le)?.value;

  it("given applied events, then the projection lag histogram observes now minus each one's recorded time", async () => {
    const metrics = new Metrics();
    const now = Date.parse('2026-01-01T00:00:01.000Z');
    metrics.observeApplied([{ recordedAt: '2026-01-01T00:00:00.998Z' }, { recordedAt: '2026-01-01T00:00:00.960Z' }], now);
    const values = await lagObservations(metrics);
    expect(bucket(values, 0.0025)).toBe(1);
    expect(bucket(values, 0.05)).toBe(2);
    expect(values.find((value) => value.metricName === 'projection_apply_lag_seconds_sum')?.value).toBeCloseTo(0.042, 6);
  });

  it('given a recorded time after now (clocks apart), then it counts as no lag', async () => {
    const metrics = new Metrics();
    metrics.observeApplied([{ recordedAt: '2026-01-01T00:00:02.000Z' }], Date.parse('2026-01-01T00:00:01.000Z'));
    const values = await lagObservations(metrics);
    expect(values.find((value) => value.metricName === 'projection_apply_lag_seconds_count')?.value).toBe(1);
    expect(values.find((value) => value.metricName === 'projection_apply_lag_seconds_sum')?.value).toBe(0);
  });

  it('given a recorded time that is not a date, then it is left out', async () => {
    const metrics = new Metrics();
    metrics.observeApplied([{ recordedAt: 'not a date' }]);
    expect((await lagObservations(metrics)).find((value) => value.metricName === 'projection_apply_lag_seconds_count')?.value).toBe(0);
  });
});
