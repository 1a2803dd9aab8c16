import * as v from 'valibot';

/** One day of a zone's query counts, as both clients read it (`{date, qcount, nxcount}`). */
export const ZoneQueriesOfDay = v.strictObject({
  date: v.pipe(v.string(), v.isoDate(), v.description('The day (UTC), `YYYY-MM-DD`.')),
  qcount: v.pipe(v.number(), v.integer(), v.minValue(0), v.description("Queries answered for the zone's names.")),
  nxcount: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(0),
    v.description('Of those, the ones answered NXDOMAIN (a name the zone does not hold).'),
  ),
});

/** What `GET /v2/dns/zones/{id}/stats` answers. */
export const ZoneStatsView = v.strictObject({
  queries: v.pipe(
    v.array(ZoneQueriesOfDay),
    v.description(
      "With PowerDNS: one day, today, counting the zone's share of the last 10,000 queries the server answered. Route 53 and the sandbox keep no counts an API reads: empty.",
    ),
  ),
});
export type ZoneStatsView = v.InferOutput<typeof ZoneStatsView>;
